"""Quiescent's runner library: build the kernel, boot it under QEMU, judge
what it printed. tools/qrun.py is the command line over it; the pytest
suites in tests/ and the benchmark tools import it. One idea per module:

  qs.log       the console log: printk lines, the boot banner, panics and
               their backtraces, BENCH lines, KTAP (tools/ktap.py)
  qs.build     configure and build build/<name>; what a build is (variant,
               preemption, HZ, read from the build itself)
  qs.qemu      the one QEMU command line of the project; QEMU's exit codes
  qs.net       the guest's network cards and the QEMU backends behind them
  qs.kvm       the KVM probe (cached) and the choice of accelerator
  qs.console   a guest's serial console driven by pexpect: the log, typing
               at a prompt, the timeout
  qs.boot      one boot: boot_image(), boot(), boot_pair(), BootResult,
               result files, the one-line summary
  qs.scenario  tests/scenarios/*.toml: one file, a matrix of cases; the
               checks each case makes
  qs.judge     a console judged whole: the WARNING, BUG, Call Trace, panic
               and stall lines a case did not name as expected
  qs.gdb       QEMU stopped under gdb, the console on a unix socket
  qs.variants  the RCU variants: kernel/rcu/Kconfig's choice, the one list
               the build, the tools and the scenarios read

Every module finds the tree through REPO. tools/ is on sys.path for a
command run as `python3 tools/<command>.py` (Python puts the script's
folder first) and for the tests (tests/conftest.py); nothing imports by
file path. Also here: qs.ktap (the KTAP parser), qs.timeline (the trace
parser and grace-period checker), qs.sync_tree (the scratch copies and
their lock), the lab grader (qs.grade and its qs.grade_* parts, among
them qs.grade_logs: a scratch copy's logs kept for the student), and the
code of the benchmark commands make figures reuses (qs.compare,
qs.semopbench, qs.amlat, qs.rtbench); each tools/<command>.py is a thin
entry point.
"""
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
