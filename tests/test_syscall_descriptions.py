"""The fuzzer's description table (user/bin/fuzz/calls.h) covers the
kernel's system-call table, read from the sources (tools/qs/syscalls.py):
a call added with SYSCALL_DEFINE and no CALL(SYS_name, ...) entry fails
here, as does an entry for a call that is gone. The kernel's table itself
is checked too: every registered call has one number in include/uapi, and
no number is used twice. No build, no boot.

Each check can fail: the planted tests give the checker a small tree with
a call the table lacks, an entry for no call, a repeat, a registration
without a number and a number used twice.
"""
import pytest

from qs import REPO
from qs import syscalls


def test_kernel_table_is_consistent():
    assert syscalls.check_table() == []
    assert len(syscalls.registered()) > 50          # the parser found the calls


def test_every_call_is_described():
    table = REPO / syscalls.DESCRIPTIONS
    if not table.exists():
        pytest.skip(f"no {syscalls.DESCRIPTIONS} in this tree (the fuzzer's branch adds it)")
    assert syscalls.check_descriptions(table) == []


def _tree(tmp_path, kernel_c, uapi_h):
    (tmp_path / "kernel" / "x").mkdir(parents=True)
    (tmp_path / "include" / "uapi").mkdir(parents=True)
    (tmp_path / "kernel" / "x" / "calls.c").write_text(kernel_c)
    (tmp_path / "include" / "uapi" / "x.h").write_text(uapi_h)
    return tmp_path


def test_planted_mismatches_are_caught(tmp_path):
    repo = _tree(tmp_path,
                 "SYSCALL_DEFINE(SYS_one, sys_one);\nSYSCALL_DEFINE(SYS_two, sys_two);\n"
                 "SYSCALL_DEFINE(SYS_new, sys_new);\n",
                 "#define SYS_one 1\n#define SYS_two 2\n#define SYS_new 3\n")
    table = tmp_path / "calls.h"
    table.write_text("/* An entry is CALL(SYS_name, result, ...) */\n"
                     "#define T(CALL) CALL(SYS_one, R_NONE, 0) \\\n"
                     "  CALL(SYS_two, R_FD, 0, K_FD) CALL(SYS_two, R_FD, 0) CALL(SYS_gone, R_NONE, 0)\n")
    problems = syscalls.check_descriptions(table, repo)
    assert any(p.startswith("SYS_new: registered in kernel/x/calls.c (sys_new) but not described")
               for p in problems), problems
    assert "SYS_gone: described in %s but no kernel file registers it" % table in problems
    assert "SYS_two: described 2 times" in problems
    assert len(problems) == 3, problems
    assert syscalls.check_table(repo) == []


def test_planted_table_errors_are_caught(tmp_path):
    repo = _tree(tmp_path,
                 "SYSCALL_DEFINE(SYS_one, sys_one);\nSYSCALL_DEFINE(SYS_two, sys_two);\n"
                 "SYSCALL_DEFINE(SYS_nonum, sys_nonum);\n",
                 "#define SYS_one 7\n#define SYS_two 7\n")
    problems = syscalls.check_table(repo)
    assert "number 7 is shared by SYS_one, SYS_two" in problems
    assert any(p.startswith("SYS_nonum (kernel/x/calls.c) has no number") for p in problems)
