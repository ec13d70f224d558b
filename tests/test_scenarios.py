"""Every case of every file in tests/scenarios/ is one test: build its
configuration, boot it, check what the case expects (exit status, the
banner against the build, CPUs online and ticking, KTAP groups, log lines,
backtrace). A file with cpus = [...] or config = [...] is several cases,
each with its own name (qs/scenario.py). The same runs, by hand:

    python3 tools/qrun.py scenario              # all
    python3 tools/qrun.py scenario 'boot-iso-*'
    python3 tools/qrun.py scenario --list 'torture-*'
"""
import pytest

from conftest import record_summary
from qs.build import BuildError
from qs.scenario import failure_tail, run_scenario, scenarios

# soak-* scenarios are long runs for `make soak`, not for `make test`.
CASES = [sc for sc in scenarios() if not sc.name.startswith("soak-")]


def test_scenarios_exist():
    assert len(CASES) >= 150, "tests/scenarios/*.toml lost cases"


@pytest.mark.qemu
@pytest.mark.parametrize("sc", [pytest.param(sc, marks=[pytest.mark.full] if sc.full else [])
                                for sc in CASES], ids=[sc.name for sc in CASES])
def test_scenario(sc, kvm):
    try:
        r, why, line = run_scenario(sc, kvm=kvm, cache=True)
    except BuildError as e:
        record_summary(f"FAIL  {sc.name}: build failed")
        pytest.fail(str(e), pytrace=False)
    record_summary(line)
    if why:
        pytest.fail(f"{sc.name}: {sc.description}\n  " + "\n  ".join(why)
                    + f"\n{line}\nlast console lines:\n{failure_tail(sc, r)}", pytrace=False)
