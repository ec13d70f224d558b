"""The deterministic mode (docs/replay.md, tools/qs/replay.py): the same
run twice gives the same console, byte for byte, timestamps included;
a nondeterministic source put back breaks that, and this test sees it;
another torture seed gives another run.

make test runs the shell-script workload and the planted source (each
two boots of a few seconds' virtual time); the torture runs, the lab
check and the seeds are make test-full's (marker full): a 3-second
torture at -smp 4 takes a minute or more of host time in this mode.
"""
import re
import tomllib

import pytest

from qs import REPO, replay
from qs.boot import boot
from qs.build import BuildError
from qs.scenario import Scenario, run_scenario

SHELL_SCRIPT = "-- rcu sync; rcu call 100; rcu barrier; ps; poweroff"
TORTURE = "ktest=torture_rcu torture.duration=3"


@pytest.fixture
def deterministic(monkeypatch):
    """The mode on for this test only (the environment, as make sets it)."""
    monkeypatch.setenv(replay.ENV, "1")
    monkeypatch.delenv(replay.SHIFT_ENV, raising=False)


def first_difference(a, b):
    """'' if a == b, else the first line where they differ, both ways."""
    if a == b:
        return ""
    la, lb = a.split("\n"), b.split("\n")
    for i, (x, y) in enumerate(zip(la, lb), 1):
        if x != y:
            return f"line {i}: {x!r} / {y!r}"
    return f"one console is a prefix of the other ({len(la)} / {len(lb)} lines)"


def twice(config, cpus, cmdline, label, timeout=600):
    out = []
    for i in range(2):
        try:
            r = boot(name=f"test-{config}", defconfig=config, cpus=cpus, cmdline=cmdline,
                     timeout=timeout, kvm="0", label=f"{label}-{i + 1}")
        except BuildError as e:
            pytest.fail(str(e), pytrace=False)
        assert r.status in ("pass", "poweroff"), \
            f"{label} run {i + 1} ended as {r.describe_status()}:\n{r.tail(15)}"
        out.append(r)
    return out


def test_shell_script_twice(deterministic):
    a, b = twice("defconfig", 2, SHELL_SCRIPT, "det-shell")
    assert "-icount" in a.cmd and "tcg,thread=single" in a.cmd
    assert re.search(r"synchronize_rcu\(\) returned", a.log), a.tail(15)
    diff = first_difference(a.log, b.log)
    assert not diff, f"the same deterministic boot twice, two consoles: {diff}"


@pytest.mark.full
def test_planted_host_clock_is_caught(deterministic, monkeypatch):
    """sleep=on: an idle guest's virtual clock then follows the host's while
    every CPU waits (for the next tick, for rcu sync's grace period): the
    host clock back in the guest. The same comparison must fail."""
    real = replay.accel_args

    def host_clock(s=None):
        return [a.replace("sleep=off", "sleep=on") for a in real(s)]
    monkeypatch.setattr(replay, "accel_args", host_clock)
    a, b = twice("defconfig", 1, "-- rcu sync; poweroff", "det-planted")
    assert "sleep=on" in " ".join(a.cmd)
    assert first_difference(a.log, b.log), \
        "the host clock is back in the guest and the consoles are still the same"


@pytest.mark.full
@pytest.mark.parametrize("config", ["rcu_tree_defconfig", "rcu_preempt_defconfig"])
def test_torture_twice(deterministic, config):
    a, b = twice(config, 4, TORTURE, f"det-torture-{config}")
    assert "rcu-torture: SUCCESS" in a.log, a.tail(15)
    assert re.search(r"rcu-torture: start: .* seed=\d+ ", a.log), "no seed in the start line"
    diff = first_difference(a.log, b.log)
    assert not diff, f"{config}: the same torture run twice, two consoles: {diff}"


def lab_check(lab_dir, name):
    """A lab's check as the grader boots it (tools/grade.py: a scenario case)."""
    doc = tomllib.loads((REPO / "labs" / lab_dir / "grade.toml").read_text())
    c = next(c for c in doc["check"] if c["name"] == name)
    return Scenario(name=f"det-lab-{name}", config=c["config"], cpus=c["cpus"],
                    cmdline=c["cmdline"], timeout=c.get("timeout", 120), log=c.get("log", []))


@pytest.mark.full
def test_lab_check_twice(deterministic):
    sc = lab_check("lab1-grace-period", "boot-and-grace-period")
    logs = []
    for _ in range(2):
        r, why, line = run_scenario(sc, kvm="0", cache=False, stop_early=True)
        assert not why, line + "\n" + "\n".join(why)
        logs.append(r.log)
    diff = first_difference(*logs)
    assert not diff, f"Lab 1's check twice, two consoles: {diff}"


@pytest.mark.full
def test_two_seeds_differ(deterministic):
    """torture.seed matters: two seeds, two runs (each the same every time)."""
    runs = {}
    for seed in (1, 2):
        r = boot(name="test-rcu_tree_defconfig", defconfig="rcu_tree_defconfig", cpus=2,
                 cmdline=f"ktest=torture_rcu torture.duration=1 torture.seed={seed}",
                 timeout=600, kvm="0", label=f"det-seed-{seed}")
        assert f"seed={seed} " in r.log, r.tail(10)
        runs[seed] = r.log
    # The start lines differ by the seed itself; the rest must differ too.
    body = {s: re.sub(r"seed=\d+", "seed=N", log) for s, log in runs.items()}
    assert first_difference(body[1], body[2]), "seeds 1 and 2 gave the same run"
