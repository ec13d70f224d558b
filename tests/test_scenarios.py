"""Every file in tests/scenarios/ is one test: build its configuration,
boot it, check what the scenario expects (exit status, CPUs online and
ticking, KTAP groups, log lines, backtrace). The same runs, by hand:

    python3 tools/qrun.py scenario              # all
    python3 tools/qrun.py scenario 'boot-iso-*'
"""
import pytest

import qrun
from conftest import record_summary

# soak-* scenarios are long runs for `make soak`, not for `make test`.
SCENARIOS = [p for p in qrun.scenario_files() if not p.stem.startswith("soak-")]


def test_scenarios_exist():
    assert len(SCENARIOS) >= 10, "tests/scenarios/*.scn went missing"


@pytest.mark.qemu
@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path, kvm):
    sc = qrun.load_scenario(path)
    try:
        r, why, line = qrun.run_scenario(sc, kvm=kvm, cache=True)
    except qrun.BuildError as e:
        record_summary(f"FAIL  {sc.name}: build failed")
        pytest.fail(str(e), pytrace=False)
    record_summary(line)
    if why:
        pytest.fail(f"{sc.name}: {sc.description}\n  " + "\n  ".join(why)
                    + f"\n{line}\nlast console lines:\n{r.tail(25)}", pytrace=False)
