"""The scenario files themselves (tests/scenarios/*.toml, qs/scenario.py):
every file loads, every case has a unique name and a description, and the
matrix, template and error rules do what qs/scenario.py says. No QEMU."""
import re

import pytest

from qs.scenario import load_scenarios, scenario_files, scenarios


def test_every_file_loads_with_unique_names():
    names = []
    for f in scenario_files():
        cases = load_scenarios(f)
        assert cases, f"{f.name}: no case"
        for sc in cases:
            assert sc.description, f"{f.name}: {sc.name} has no description"
            assert sc.cpus >= 1 and sc.timeout > 0
            names.append(sc.name)
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert len(scenarios()) == len(names)


def write(tmp_path, text, name="x.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_matrix_names_builds_and_templates(tmp_path):
    cases = load_scenarios(write(tmp_path, """
description = "on ${variant} at ${cpus}"
config = ['rcu_poll_defconfig', { name = 'rcu_krcud_defconfig', option = ['CONFIG_X=y'] },
          { name = 'defconfig', label = 'none' }]
option = 'CONFIG_HZ_1000=y'
cpus = [1, 4]
cmdline = 'ktest=x cpus=${cpus}'
log = ['variant=${variant} cpus=${cpus}']
""", "torture.toml"))
    assert [c.name for c in cases] == [
        "torture-poll-smp1", "torture-poll-smp4", "torture-krcud-smp1", "torture-krcud-smp4",
        "torture-none-smp1", "torture-none-smp4"]
    k = cases[2]
    assert k.options == ["CONFIG_HZ_1000=y", "CONFIG_X=y"]
    assert k.build_name == "test-rcu_krcud_defconfig+HZ_1000-y+X-y"
    assert cases[0].build_name == cases[1].build_name          # one build for both CPU counts
    assert k.cmdline == "ktest=x cpus=1"
    assert k.description == "on ${variant} at 1"                # known only after the build
    rx = k.regexes("log", dict(variant="poll-percpu", preemption="none", hz=250))
    assert rx == [r"variant=poll\-percpu cpus=1"] and re.search(rx[0], "variant=poll-percpu cpus=1")


def test_explicit_name_and_scalars(tmp_path):
    cases = load_scenarios(write(tmp_path, """
name = 'rcu-${config}-smp${cpus}'
config = ['rcu_ltimer_kpreempt_defconfig', 'rcu_xrcu_defconfig']
cpus = 2
shell = ['ps', 'poweroff']
input = [{ after = 'type a line', send = "hi\\u0014" }]
"""))
    assert [c.name for c in cases] == ["rcu-ltimer-kpreempt-smp2", "rcu-xrcu-smp2"]
    assert cases[0].shell == ["ps", "poweroff"] and cases[0].input == [("type a line", "hi\x14")]


def test_variants_expand_in_the_lists_order(tmp_path):
    """{ variants = ... } is every real variant's configuration that exists,
    less except; an entry naming one of them takes its place."""
    from qs import variants
    cases = load_scenarios(write(tmp_path, """
config = [{ variants = 'rcu_*_kpreempt_defconfig', except = ['poll'] },
          { name = 'rcu_xrcu_kpreempt_defconfig', cmdline = 'rcu_xrcu.period=1' }, 'defconfig']
""", "t.toml"))
    want = [v.defconfig(kpreempt=True) for v in variants.real() if v.name != "poll"
            and (variants.REPO / "configs" / v.defconfig(kpreempt=True)).exists()]
    assert [c.config for c in cases] == want + ["defconfig"]
    assert "rcu_student_kpreempt_defconfig" not in want and "rcu_ltimer_kpreempt_defconfig" in want
    x = next(c for c in cases if c.config == "rcu_xrcu_kpreempt_defconfig")
    assert x.cmdline == "rcu_xrcu.period=1" and x.name == "t-xrcu-kpreempt"


@pytest.mark.parametrize("text, complaint", [
    ("config = [{ variants = 'rcu_*_defconfig', except = ['nosuch'] }]", "except names no variant"),
    ("config = [{ variants = 'rcu_defconfig' }]", "a variants table is"),
    ("config = [{ variants = 'nosuch_*' }]", "names no configuration"),
    ("cpus = [1, 1]", "same name"),
    ("colour = 'red'", "unknown key"),
    ("expect = 'maybe'", "expect must be"),
    ("cpus = 0", "positive"),
    ("log = ['${nonsense}']", "unknown ${nonsense}"),
    ("log = ['(']", "bad regex"),
    ("cmdline = '${variant}'", "not yet known ${variant}"),
    ("input = [{ after = 'x' }]", "input is a list"),
    ("timeout = 'long'", "timeout must be a number"),
    ("cpus = [", "x.toml"),
])
def test_bad_files_are_refused(tmp_path, text, complaint):
    with pytest.raises(ValueError) as e:
        load_scenarios(write(tmp_path, text + "\n"))
    assert complaint in str(e.value), str(e.value)
