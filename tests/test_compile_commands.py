"""tools/compile_commands.py, which `make compile_commands.json` runs: each
file gets the flags of its kind (kernel, module, user program), the
configuration's response file is expanded into the -D options it holds
(escaped as gcc reads them), and an unchanged database is left alone so
that a language server does not index the tree again. No build, no QEMU.
"""
import json
import os
import subprocess
import sys

from qs import REPO

SCRIPT = REPO / "tools" / "compile_commands.py"


def run(tmp_path, **env):
    subprocess.run([sys.executable, str(SCRIPT), "--cc", "gcc", "--directory", str(tmp_path),
                    "--out", str(tmp_path / "cc.json")],
                   env={**os.environ, **env}, check=True, capture_output=True)
    return {e["file"]: e for e in json.loads((tmp_path / "cc.json").read_text())}


def test_flags_by_kind_and_config_expanded(tmp_path):
    (tmp_path / "b").mkdir()
    # As the Makefile's sed writes it: every character but [A-Za-z0-9_=-] escaped.
    (tmp_path / "b" / "autoconf.rsp").write_text('-DCONFIG_HZ=250\n-DCONFIG_CMDLINE=\\"a\\ b\\"\n')
    db = run(tmp_path, OBJ_DIR="b", KERNEL_CFLAGS="-O2 -Iinclude @b/autoconf.rsp",
             KERNEL_SRCS="kernel/core/main.c", MODULE_SRCS="modules/hello.c modules/big/part.c",
             USER_CFLAGS="-Iuser/include", USER_SRCS="user/bin/sh.c")
    main = db[str(tmp_path / "kernel/core/main.c")]
    assert main["arguments"] == ["gcc", "-O2", "-Iinclude", "-DCONFIG_HZ=250",
                                 '-DCONFIG_CMDLINE="a b"', "-c", "kernel/core/main.c",
                                 "-o", "b/kernel/core/main.o"]
    assert main["directory"] == str(tmp_path)
    assert db[str(tmp_path / "modules/hello.c")]["arguments"][-6:-4] == \
        ["-DMODULE", '-DMODULE_NAME="hello"']
    assert '-DMODULE_NAME="big"' in db[str(tmp_path / "modules/big/part.c")]["arguments"]
    assert db[str(tmp_path / "user/bin/sh.c")]["arguments"][:2] == ["gcc", "-Iuser/include"]


def test_unchanged_database_not_rewritten(tmp_path):
    env = dict(KERNEL_CFLAGS="-O2", KERNEL_SRCS="kernel/core/main.c")
    run(tmp_path, **env)
    out = tmp_path / "cc.json"
    os.utime(out, (1, 1))
    run(tmp_path, **env)
    assert out.stat().st_mtime == 1
    run(tmp_path, KERNEL_CFLAGS="-O1", KERNEL_SRCS="kernel/core/main.c")
    assert out.stat().st_mtime != 1


def test_nothing_to_write_is_an_error(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path / "cc.json")],
                       env={k: v for k, v in os.environ.items() if not k.endswith("_SRCS")},
                       capture_output=True, text=True)
    assert r.returncode != 0 and "no source files" in r.stderr
