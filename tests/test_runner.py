"""The runner reports what really happened: a panic is a failure (not a
timeout), a hang is a timeout, the exit status decides, logs are kept."""
import os
import subprocess
import sys

import pytest

from qs import REPO
from qs.qemu import EXIT_PANIC

pytestmark = pytest.mark.qemu


def test_panic_is_reported_as_failure_not_timeout(boot):
    r = boot(cpus=2, cmdline="ktest=fault_page_fault", timeout=60)
    assert not r.timed_out, f"the deliberate fault hung until the timeout:\n{r.tail()}"
    assert r.exit_code == EXIT_PANIC, f"exit {r.exit_code}, expected 37 (panic):\n{r.tail()}"
    ok, why = r.verdict("pass")
    assert not ok and any("panic" in w for w in why)
    assert r.console.panic is not None, "no 'Kernel panic on CPU' line"
    assert "ktest_fn_fault_page_fault" in r.console.panic.trace, r.tail()
    assert os.path.exists(r.log_path)


def test_cli_exit_status_on_panic():
    """`qrun.py boot` exits non-zero and says FAIL for the deliberate fault."""
    p = subprocess.run([sys.executable, "tools/qrun.py", "boot", "--cpus", "1", "--kvm",
                        os.environ.get("KVM", "auto"), "--args", "ktest=fault_page_fault"],
                       cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=180)
    assert p.returncode == 1, p.stdout
    assert p.stdout.lstrip().startswith("FAIL") or "\nFAIL" in p.stdout, p.stdout
    assert "panic" in p.stdout


def test_hang_is_reported_as_timeout(boot):
    """Without ktest= or poweroff the kernel idles forever: the runner kills it."""
    r = boot(cpus=1, cmdline="", timeout=4, label="idle-timeout")
    assert r.status == "timeout" and r.exit_code is None
    assert not r.verdict("pass")[0]
    assert r.elapsed < 30
    # Before the kill the runner pressed Ctrl-T: a hang's log says which
    # task waits where (qs.console.QemuConsole.dump_before_kill).
    assert "---- end of statistics ----" in r.log, r.tail()
    assert "pid name" in r.log and "srcu: domains:" in r.log, r.tail()


def test_results_json_written(boot):
    r = boot(cpus=4, cmdline="ktest=smp_*,lock_*,kmalloc_*", timeout=90)
    res = REPO / "build" / "test-defconfig" / "results"
    assert any(res.glob("*.json")), "no result file under build/test-defconfig/results"
    assert r.console.banner is not None, r.tail()


def test_ktest_list(boot):
    r = boot(cpus=1, cmdline="ktest=list", timeout=60)
    assert r.status == "pass", r.tail()
    names = [l.split()[1] for l in r.log.split("\n") if l.startswith("ktest: ")]
    for prefix in ("smp_", "lock_", "kmalloc_"):
        assert any(n.startswith(prefix) for n in names), f"no {prefix}* test in ktest=list: {names}"
    assert "fault_page_fault" in names


def test_make_run_noninteractive():
    """`make run CPUS=4 BOOT=kernel ARGS=poweroff` boots, shows the CPUs and ticks, exits 0."""
    env = dict(os.environ, CPUS="4")
    p = subprocess.run(["make", "--no-print-directory", "O=build/test-defconfig", "run",
                        "BOOT=kernel", "CPUS=4", "ARGS=poweroff",
                        f"KVM={os.environ.get('KVM', 'auto')}"],
                       cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=180, env=env)
    assert p.returncode == 0, p.stdout[-3000:]
    assert "smp: all 4 CPUs online" in p.stdout, p.stdout[-3000:]
    assert "ticks: cpu0=" in p.stdout and "cpu3=" in p.stdout
