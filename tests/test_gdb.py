"""`make gdb` in batch mode: QEMU stopped at the first instruction, gdb
reaches the kernel's C entry and prints kernel variables."""
import subprocess
import sys

import pytest

from qs import REPO
from qs.gdb import gdb_session

pytestmark = pytest.mark.qemu


@pytest.fixture(scope="module")
def gdb_out(defconfig_elf):
    cmds = ["hbreak kmain", "continue", "print $pc == &kmain",
            "print nr_cpu_ids",
            "delete", "hbreak ktest_run_selected", "continue",
            "print nr_cpu_ids", "print jiffies > 0", "qs-ticks", "qs-cpus", "qs-dmesg 3",
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
    assert "config: HZ=" in gdb_out or "ticks:" in gdb_out, gdb_out
    assert "$5 = 1" in gdb_out, f"CPU 1's tick_count via $percpu is not > 0:\n{gdb_out}"


def test_cli_batch(defconfig_elf):
    """The same through the command line `make gdb` uses."""
    p = subprocess.run([sys.executable, "tools/qrun.py", "gdb", "--build-dir", "build/test-defconfig",
                        "--cpus", "1", "--batch", "-ex", "hbreak kmain", "-ex", "continue",
                        "-ex", "print sizeof(log_buf)"],
                       cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=180)
    assert "131072" in p.stdout, p.stdout
