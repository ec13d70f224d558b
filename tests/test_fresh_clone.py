"""A newcomer's first command works the first time: README's `make run
ARGS=poweroff BOOT=kernel`, in a clean copy of the tree, with a Python
module the build needs missing when it starts.

The machine's other tools are all here, so the missing dependency is made
with PYTHON= pointing at a fresh venv that sees this interpreter's modules
except kconfiglib; setup-deps.sh must install it (from a wheel built here
out of the installed kconfiglib, so no network is needed) before the
configuration is written. Before the fix, make remade the included
auto.conf, and so .config, before `deps` had run: kconfig.py found no
kconfiglib and make stopped with "No rule to make target 'build/.config'".
"""
import base64
import hashlib
import importlib.metadata
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile

import pytest

from qs import REPO

# full: make test-full, not make test. A whole build in a fresh copy and a
# venv (about four minutes on a busy two-core host, 2 of make test's 15);
# .ci/run's clean clone walks the same first-run path for real.
pytestmark = [pytest.mark.qemu, pytest.mark.build, pytest.mark.full]


def copy_tree(dest):
    """The files a clone of the working tree would hold: tracked ones (as
    they are now) and new ones git does not ignore; no build/."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=REPO, check=True, stdout=subprocess.PIPE).stdout
    for rel in sorted(set(out.decode().split("\0")) - {""}):
        src = REPO / rel
        if src.is_symlink() or not src.is_file():
            continue                    # deleted in the working tree, or a submodule
        dst = dest / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(src.read_bytes())
        dst.chmod(src.stat().st_mode & 0o777)


def kconfiglib_wheel(wheelhouse):
    """A wheel of the installed kconfiglib (its modules and metadata), for
    pip to install offline."""
    try:
        dist = importlib.metadata.distribution("kconfiglib")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("kconfiglib is not installed as a distribution here; nothing to build a wheel from")
    name, version = dist.metadata["Name"], dist.version
    info = f"{name}-{version}.dist-info"
    files = [f for f in dist.files
             if not str(f).startswith("..") and "__pycache__" not in str(f)
             and (f.parts[0] != info or f.name in ("METADATA", "WHEEL", "LICENSE.txt"))]
    whl = wheelhouse / f"{name}-{version}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(whl, "w") as z:
        for f in files:
            data = f.locate().read_bytes()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            z.writestr(str(f.as_posix()), data)
            record.append(f"{f.as_posix()},sha256={digest},{len(data)}")
        record.append(f"{info}/RECORD,,")
        z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return name


def venv_without(root, missing):
    """A venv (with pip) whose python sees this interpreter's modules
    except the distribution `missing`: a folder of links to every entry of
    this site-packages but that one's files, added as a site dir."""
    venv.EnvBuilder(with_pip=True).create(root)
    py = root / "bin" / "python"
    vsite = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    hide = {f.parts[0] for f in importlib.metadata.distribution(missing).files}
    hide |= {os.path.basename(p) for p in os.listdir(vsite)}     # the venv's own pip, setuptools
    shim = root / "host-site"
    shim.mkdir()
    for sp in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        for entry in os.listdir(sp):
            if entry not in hide and not (shim / entry).exists():
                (shim / entry).symlink_to(os.path.join(sp, entry))
    with open(os.path.join(vsite, "host-site.pth"), "w") as f:
        f.write(f"import site; site.addsitedir({str(shim)!r})\n")
    found = subprocess.run([str(py), "-c", f"import importlib.util as u; print(u.find_spec({missing!r}))"],
                           check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    assert found == "None", f"the venv still finds {missing}: {found}"
    return py


def fresh_make(tmp_path, *args):
    """make ARGS in a fresh copy of the tree with PYTHON= a venv lacking
    kconfiglib; returns (the module, the venv's python, make's output)."""
    tree = tmp_path / "quiescent"
    copy_tree(tree)
    wheelhouse = tmp_path / "wheels"
    wheelhouse.mkdir()
    missing = kconfiglib_wheel(wheelhouse)
    py = venv_without(tmp_path / "venv", missing)
    # A fresh shell: no make of ours around it, pip offline from the wheelhouse.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse))
    p = subprocess.run(["make", "-j2", *args, f"KVM={os.environ.get('KVM', 'auto')}", f"PYTHON={py}"],
                       cwd=tree, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=900)
    out = p.stdout
    assert f"missing: python modules {missing}" in out, \
        f"setup-deps never saw {missing} missing:\n{out[-3000:]}"
    assert p.returncode == 0, f"the first make {args[0]} failed (exit {p.returncode}):\n{out[-3000:]}"
    # It installed into the interpreter it was given.
    subprocess.run([str(py), "-c", f"import {missing}"], check=True)
    return out


def test_first_make_run_installs_and_boots(tmp_path):
    out = fresh_make(tmp_path, "run", "ARGS=poweroff", "BOOT=kernel", "CPUS=2")
    assert "Quiescent: an x86-64 SMP teaching kernel" in out, out[-3000:]
    assert "poweroff: as asked on the command line" in out, out[-3000:]
    bad = [l for l in out.splitlines() if any(w in l for w in ("WARNING", "BUG:", "Call Trace", "Kernel panic"))]
    assert not bad, "the first boot's console warns:\n" + "\n".join(bad)


def test_first_make_test_installs_and_runs(tmp_path):
    """`make test` first: the dependencies, then pytest (on the parsers'
    suite only, PYTEST= narrowing it; no build, no boot). This one passed
    before the fix too (no goal of make test needs .config), after a
    kconfiglib error line; it keeps the first make test working."""
    out = fresh_make(tmp_path, "test", "PYTEST=-k test_ktap")
    assert " passed" in out and "no tests ran" not in out, out[-3000:]
