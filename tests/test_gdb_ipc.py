"""gdb's qs-ipc (tools/gdb/ipc.py) against a running kernel: the semaphore
ID table with its sets, the frees waiting for a grace period (a set from
freeary, an old array from grow_ary), and a set being removed under a
waiter (docs/ipc.md)."""
import re

import pytest

import qrun

pytestmark = pytest.mark.qemu

SCRIPT = ("-- ipcmk -S 3 -p 640; ipcmk -S 2; ipcmk -S 1; ipcmk -S 1; ipcmk -S 1; "
          "ipcrm -s 32769; sleep 1; semtest 10; poweroff")


@pytest.fixture(scope="module")
def ipc_out(defconfig_elf):
    # Stop where grow_ary() hands the 4-slot array the fifth set outgrew to
    # ipc_rcu_free(), and where freeary() hands it the set ipcrm removed;
    # `finish` lets each join the pending list. Then, in semtest, stop in
    # freeary() while a child waits on the set (EIDRM).
    free_by = 'break __ipc_rcu_free if $_streq(caller, "%s")'
    cmds = [free_by % "grow_ary", "continue", "finish", "qs-ipc", "delete",
            free_by % "freeary", "continue", "finish", "qs-ipc", "delete",
            "break freeary if sma->sem_pending.next != &sma->sem_pending", "continue",
            "qs-ipc"]
    out, serial = qrun.gdb_session(defconfig_elf, cpus=2, cmdline=SCRIPT, batch_cmds=cmds,
                                   timeout=300)
    return out


def test_table(ipc_out):
    # In grow_ary(): four sets, the array just doubled. After ipcrm: four again.
    assert len(re.findall(r"ipc: mode rcu; sem_ids: size 8, in_use 4, max_id [34],", ipc_out)) == 2, \
        ipc_out
    assert re.search(r"^\s+0\s+0 0x00000000\s+0\s+640\s+3\s+0\s+0\s+0  0x", ipc_out, re.M), ipc_out
    assert re.search(r"^\s+4\s+131076 0x00000000\s+0\s+644\s+1\s+0", ipc_out, re.M), ipc_out


def test_pending_frees(ipc_out):
    assert re.search(r"waiting for a grace period \(ipc_rcu_free, Figure 12\): [1-9]", ipc_out), ipc_out
    assert re.search(r"freed by grow_ary: old entries array \(4 slots\)", ipc_out), ipc_out
    assert re.search(r"freed by freeary: semaphore set id 32769 key 0x00000000 nsems 2 deleted 1",
                     ipc_out), ipc_out


def test_waiter(ipc_out):
    # In freeary(), before ipc_rmid(): the set still in its slot, one waiter.
    assert re.search(r"^\s+\d+\s+\d+ 0x00000000\s+0\s+600\s+\d+\s+0\s+1\s+\d+  0x", ipc_out,
                     re.M), ipc_out
    assert "Python Exception" not in ipc_out and "Error occurred" not in ipc_out, ipc_out
