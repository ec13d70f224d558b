"""qs-kasan (tools/gdb/kasan.py) on the KASAN build: stopped in KASAN's
report of kasan_rcu_outside (a kfree_rcu()'d object read after the grace
period), it shows the object's allocation, free and call_rcu() stacks
with the test's lines."""
import re

import pytest

from qs.build import build
from qs.gdb import gdb_session

pytestmark = [pytest.mark.qemu, pytest.mark.full]   # make test-full: docs/kasan.md


def test_qs_kasan_shows_the_three_stacks():
    elf = build("test-defconfig+KASAN-y", "defconfig", ["CONFIG_KASAN=y"])
    cmds = ["hbreak report", "continue", "qs-kasan a->bad", "qs-help"]
    out, serial = gdb_session(elf, cpus=2, cmdline="ktest=kasan_rcu_outside", batch_cmds=cmds,
                              timeout=180)
    assert "Python Exception" not in out, out
    assert re.search(r"object 0x[0-9a-f]+ \(kmalloc-\d+\), 0 bytes in; freed \(in the quarantine\)", out), out
    for what in ("allocated by task", "freed by task", "call_rcu\\(\\) queued its free"):
        m = re.search(what + r".*:\n((?:  \[<[0-9a-f]+>\] .*\n)+)", out)
        assert m, f"no {what} stack:\n{out}"
        if what != "freed by task":
            assert re.search(r"(ktest_fn_kasan_rcu_outside|robj_new)  kernel/test/test_kasan\.c:\d+", m.group(1)), \
                f"the {what} stack does not name the test's line:\n{m.group(1)}"
    assert "qs-kasan" in out, "qs-help does not list qs-kasan"
