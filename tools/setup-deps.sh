#!/bin/sh
# Check for everything Quiescent's build, run and tests need; install what is
# missing when running as root (Debian/Ubuntu: apt-get, then pip), else print
# the exact commands and fail. Quiet and fast when all is present: `make run`
# and `make test` call it every time.
#
#   tools/setup-deps.sh          check, install if root
#   tools/setup-deps.sh --check  check only (never installs)

set -u
CHECK_ONLY=0
[ "${1:-}" = "--check" ] && CHECK_ONLY=1
PYTHON=${PYTHON:-python3}
QEMU_MIN=7.2

apt_missing=""
pip_missing=""
need_apt() { case " $apt_missing " in *" $1 "*) ;; *) apt_missing="$apt_missing $1" ;; esac; }

have() { command -v "$1" >/dev/null 2>&1; }

have qemu-system-x86_64 || need_apt qemu-system-x86
have nasm               || need_apt nasm
have grub-mkrescue      || need_apt grub-common
[ -d /usr/lib/grub/i386-pc ] || need_apt grub-pc-bin
have xorriso            || need_apt xorriso
have mformat            || need_apt mtools
have gdb                || need_apt gdb
have make               || need_apt make
have gcc                || need_apt gcc
have ld                 || need_apt binutils
have "$PYTHON"          || need_apt python3
if have "$PYTHON"; then
	# find_spec, not import: importing matplotlib alone takes a second.
	pip_missing=$("$PYTHON" -c 'import importlib.util as u, sys
print(" ".join(m for m in sys.argv[1:] if u.find_spec(m) is None))' kconfiglib pytest matplotlib)
	[ -n "$pip_missing" ] && pip_missing=" $pip_missing"
	"$PYTHON" -m pip --version >/dev/null 2>&1 || { [ -n "$pip_missing" ] && need_apt python3-pip; }
fi

qemu_version_ok() {
	have qemu-system-x86_64 || return 0        # reported as missing above
	v=$(qemu-system-x86_64 --version | sed -n '1s/.*version \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
	[ -n "$v" ] || { echo "setup-deps: cannot read the QEMU version" >&2; return 1; }
	if [ "$(printf '%s\n%s\n' "$QEMU_MIN" "$v" | sort -V | head -n1)" != "$QEMU_MIN" ]; then
		cat >&2 <<-EOF
		setup-deps: QEMU $v is too old: Quiescent needs QEMU >= $QEMU_MIN
		  (qemu-system-x86_64 is $(command -v qemu-system-x86_64)).
		  Install a newer qemu-system-x86 (Debian 12 / Ubuntu 23.04 or later ship one)
		  and make sure it comes first in PATH.
		EOF
		return 1
	fi
	return 0
}

if [ -z "$apt_missing" ] && [ -z "$pip_missing" ]; then
	qemu_version_ok || exit 1
	exit 0
fi

# pip on Debian 12 refuses system-wide installs unless told otherwise (PEP 668).
PIP="$PYTHON -m pip install --quiet"
if $PYTHON -m pip install --help 2>/dev/null | grep -q -- --break-system-packages; then
	PIP="$PIP --break-system-packages"
fi

echo "setup-deps: missing:${apt_missing:+ packages$apt_missing}${pip_missing:+ python modules$pip_missing}" >&2
if [ "$CHECK_ONLY" = 1 ] || [ "$(id -u)" != 0 ]; then
	echo "setup-deps: as root, run:" >&2
	[ -n "$apt_missing" ] && echo "  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y$apt_missing" >&2
	[ -n "$pip_missing" ] && echo "  $PIP$pip_missing" >&2
	exit 1
fi
if ! have apt-get; then
	echo "setup-deps: no apt-get here; install the equivalents of:$apt_missing$pip_missing" >&2
	exit 1
fi

set -e
if [ -n "$apt_missing" ]; then
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $apt_missing
fi
if [ -n "$pip_missing" ]; then
	# Prefer Debian's packages where they exist; pip for the rest.
	for mod in $pip_missing; do
		case $mod in
		pytest) pkg=python3-pytest ;;
		matplotlib) pkg=python3-matplotlib ;;
		*) pkg= ;;
		esac
		if [ -n "$pkg" ] && have apt-get && \
		   DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $pkg >/dev/null 2>&1; then
			continue
		fi
		$PIP "$mod"
	done
fi
set +e
qemu_version_ok || exit 1
echo "setup-deps: all dependencies present" >&2
