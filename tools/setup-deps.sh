#!/bin/sh
# Check for everything Quiescent's build, run and tests need, and install
# what is missing where it can; quiet and fast when all is present (`make
# run` and `make test` call it every time).
#
#   tools/setup-deps.sh          check; install what is missing
#   tools/setup-deps.sh --check  check only (never installs)
#
# Two kinds of dependency, installed two ways:
#   system packages (QEMU, NASM, GRUB, xorriso, mtools, gdb, gcc, make):
#       apt-get, as root (Debian/Ubuntu);
#   Python modules (kconfiglib, pytest, matplotlib, pexpect, xdist): pip, into the
#       interpreter that runs the tools ($PYTHON, default python3), which
#       need not be Debian's: a pyenv, a venv or conda python cannot import
#       Debian's python3-* packages, so apt is never used for them.
# After installing, every module is imported in $PYTHON once more; one
# still missing fails the script with the exact command to run.

set -u
CHECK_ONLY=0
[ "${1:-}" = "--check" ] && CHECK_ONLY=1
PYTHON=${PYTHON:-python3}
QEMU_MIN=7.2
# Names to import; pip_names() gives the distribution pip installs for
# each (pytest-xdist: make test boots independent cases side by side).
PY_MODULES="kconfiglib pytest matplotlib pexpect xdist"
pip_names() { for m in "$@"; do case $m in xdist) echo pytest-xdist ;; *) echo "$m" ;; esac; done | tr '\n' ' '; }

apt_missing=""
pip_missing=""
need_apt() { case " $apt_missing " in *" $1 "*) ;; *) apt_missing="$apt_missing $1" ;; esac; }
have() { command -v "$1" >/dev/null 2>&1; }
say() { echo "setup-deps: $*" >&2; }

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
have sparse             || need_apt sparse        # make check
# ccache is optional (the Makefile uses it where installed: the user
# programs compile the same in every configuration make test builds), so
# it alone never fails the check; it rides along when apt runs anyway.
[ -n "$apt_missing" ] && ! have ccache && need_apt ccache

# The modules $PYTHON cannot find. find_spec, not import: importing
# matplotlib alone takes a second, and this runs before every make test.
py_missing() {
	"$PYTHON" -c 'import importlib.util as u, sys
print(" ".join(m for m in sys.argv[1:] if u.find_spec(m) is None))' $PY_MODULES
}
# The same by importing each one: after an install, a module that is found
# but broken counts as missing.
py_missing_import() {
	"$PYTHON" -c 'import importlib, sys
bad = []
for m in sys.argv[1:]:
    try:
        importlib.import_module(m)
    except Exception:
        bad.append(m)
print(" ".join(bad))' $PY_MODULES
}

if have "$PYTHON"; then
	pip_missing=$(py_missing)
elif [ "$PYTHON" = python3 ]; then
	need_apt python3
	pip_missing=$PY_MODULES
else
	say "PYTHON=$PYTHON is not a command; name the interpreter that runs the tools"
	exit 1
fi
[ -n "$pip_missing" ] && pip_missing=" $pip_missing"
# Debian's python3 has no pip (and no ensurepip): that one is a system package.
if [ -n "$pip_missing" ] && ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
	need_apt python3-pip
fi

qemu_version_ok() {
	have qemu-system-x86_64 || return 0        # reported as missing above
	v=$(qemu-system-x86_64 --version | sed -n '1s/.*version \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
	[ -n "$v" ] || { say "cannot read the QEMU version"; return 1; }
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

# The pip command for $PYTHON. pip 23 and later refuse to install into an
# "externally managed" interpreter (Debian's, PEP 668) unless told
# --break-system-packages; older pips do not know the option at all.
APT_CMD="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$apt_missing"
pip_cmd() {
	cmd="$PYTHON -m pip install --quiet"
	if "$PYTHON" -m pip install --help 2>/dev/null | grep -q -- --break-system-packages; then
		cmd="$cmd --break-system-packages"
	fi
	echo "$cmd"
}
# Whether this user may install into $PYTHON: root may; anyone may into a
# venv, pyenv or conda python whose site-packages they own.
can_pip() {
	[ "$(id -u)" = 0 ] && return 0
	"$PYTHON" -c 'import os, sysconfig, sys
sys.exit(0 if os.access(sysconfig.get_paths()["purelib"], os.W_OK) else 1)' 2>/dev/null
}
tell() {
	[ -n "$apt_missing" ] && say "  (as root) $APT_CMD"
	[ -n "$pip_missing" ] && say "  $(pip_cmd) $(pip_names $pip_missing)"
}

say "missing:${apt_missing:+ packages$apt_missing}${pip_missing:+ python modules$pip_missing (for $PYTHON)}"
if [ "$CHECK_ONLY" = 1 ]; then
	say "to install them, run:"
	tell
	exit 1
fi
if [ -n "$apt_missing" ]; then
	if [ "$(id -u)" != 0 ] || ! have apt-get; then
		if have apt-get; then say "as root, run:"; else say "no apt-get here; install the equivalents of:$apt_missing, then:"; fi
		tell
		exit 1
	fi
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $apt_missing ||
		{ say "apt-get failed; run it yourself:"; tell; exit 1; }
	pip_missing=$(py_missing)
	[ -n "$pip_missing" ] && pip_missing=" $pip_missing"
fi
if [ -n "$pip_missing" ]; then
	if ! can_pip; then
		say "$PYTHON belongs to root; as root (or with a venv of your own as PYTHON=), run:"
		tell
		exit 1
	fi
	# shellcheck disable=SC2046
	$(pip_cmd) $(pip_names $pip_missing) || say "pip failed (see above)"
	still=$(py_missing_import)
	if [ -n "$still" ]; then
		pip_missing=" $still"
		say "$PYTHON still cannot import:$pip_missing; run:"
		say "  $(pip_cmd) $(pip_names $pip_missing)"
		exit 1
	fi
fi
qemu_version_ok || exit 1
say "all dependencies present (python modules for $PYTHON)"
