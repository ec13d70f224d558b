"""`make gdb` in batch mode: QEMU stopped at the first instruction, gdb
reaches the kernel's C entry and prints kernel variables."""
import re
import subprocess
import sys

import pytest

from qs import REPO
from qs.gdb import gdb_session

pytestmark = pytest.mark.qemu


@pytest.fixture(scope="module")
def gdb_out(defconfig_elf):
    cmds = ["hbreak kmain", "continue", "print $pc == &kmain", "qs-help", "qs-rcu",
            "print nr_cpu_ids",
            "delete", "hbreak ktest_run_selected", "continue",
            "print nr_cpu_ids", "print jiffies > 0", "qs-ticks", "qs-cpus", "qs-online", "qs-dmesg 3",
            'print $percpu("tick_count", 1) > 0']
    out, serial = gdb_session(defconfig_elf, cpus=2, cmdline="poweroff", batch_cmds=cmds,
                                   timeout=120)
    return out


def test_reaches_kmain(gdb_out):
    assert "kmain" in gdb_out and "$1 = 1" in gdb_out, gdb_out


def test_prints_kernel_variables(gdb_out):
    assert "$3 = 2" in gdb_out, f"nr_cpu_ids at ktest_run_selected is not 2:\n{gdb_out}"
    assert "$4 = 1" in gdb_out, f"jiffies did not advance:\n{gdb_out}"


def test_helpers(gdb_out):
    assert "ticks: cpu0=" in gdb_out and "cpu1=" in gdb_out, gdb_out
    assert "apic" in gdb_out and "Python Exception" not in gdb_out, gdb_out
    # qs-cpus decodes each CPU's counts: at ktest_run_selected, no section.
    assert re.search(r"read side \(preempt_count decoded\)\n(.*\bnone\n){2}", gdb_out), gdb_out
    assert "config: HZ=" in gdb_out or "ticks:" in gdb_out, gdb_out
    assert "$5 = 1" in gdb_out, f"CPU 1's tick_count via $percpu is not > 0:\n{gdb_out}"


def test_help_lists_every_group(gdb_out):
    """qs-help: quiescent.py's commands, RCU's, and those of the other files
    in tools/gdb/ (sched.py's), each with its summary."""
    help_text = gdb_out[gdb_out.index("Quiescent's gdb commands"):]
    for group, cmd in (("Kernel", "qs-dmesg"), ("RCU", "qs-rcu-gp"), ("Scheduler", "qs-tasks"),
                       ("SRCU", "qs-srcu")):
        m = re.search(rf"^{group}\b.*\n((?:  qs-.*\n)+)", help_text, re.M)
        assert m and re.search(rf"^  {cmd} +\S", m.group(1), re.M), f"{group}/{cmd}:\n{help_text}"
    assert "(not loaded" not in help_text, help_text


def test_rcu_before_any_grace_period_says_none(gdb_out):
    """At kmain no grace period has begun or ended: "none", not ~0UL."""
    assert "last grace period begun: none, last ended: none" in gdb_out, gdb_out
    assert "18446744073709551615" not in gdb_out


def test_cli_batch(defconfig_elf):
    """The same through the command line `make gdb` uses."""
    p = subprocess.run([sys.executable, "tools/qrun.py", "gdb", "--build-dir", "build/test-defconfig",
                        "--cpus", "1", "--batch", "-ex", "hbreak kmain", "-ex", "continue",
                        "-ex", "print sizeof(log_buf)"],
                       cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=180)
    assert "131072" in p.stdout, p.stdout
