"""One list of RCU variants: kernel/rcu/Kconfig's choice, read by
tools/qs/variants.py for the build (kernel/rcu/variants.mk), the tools and
the scenarios. No QEMU.

probe() gathers, in whichever tree it runs in, what each reader of the
list sees and which per-variant table lacks a variant. The tree's own
probe must find nothing missing; a scratch copy of the tree with a dummy
variant added (its Kconfig entry, kernel/rcu/rcu_dummy.c and
configs/rcu_dummy_defconfig, nothing more) must show it to every tool,
to `make run RCU=dummy`'s build, and must name it in each table that
still needs a line for it.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from qs import REPO, variants
from qs.sync_tree import sync_tree

# The per-variant tables a new variant needs a line in, as probe() names them.
TABLES = ("tools/figs/variants.py FIG9", "tools/figs/variants.py TABLE2",
          "tools/qs/dcachefigs.py PAPER_NAME", "tests/test_gdb_rcu_variants.py VIEWS",
          "tools/gdb/rcu_<stem>.py", "docs/rcu/README.md")


def probe():
    """Print (JSON) what this tree's tools see of the variants and what its
    per-variant tables lack; run with the tree as the working directory
    and its tools/ and tests/ on sys.path (run_probe)."""
    from figs import variants as figs_variants
    from qs import compare, dcachefigs, scenario
    from qs import variants as rcu
    from qs import soak
    import test_gdb_rcu_variants as gdb_test

    repo = Path.cwd()
    every, real = rcu.read(repo), rcu.real(repo)
    problems = []

    def cover(where, keys, want):
        problems.extend(f"{where}: no entry for {k}" for k in sorted(set(want) - set(keys)))
        problems.extend(f"{where}: {k} is no variant" for k in sorted(set(keys) - set(want)))

    cover("tools/figs/variants.py FIG9", figs_variants.FIG9, [v.stem for v in real])
    cover("tools/figs/variants.py TABLE2", figs_variants.TABLE2, [v.stem for v in real])
    cover("tools/qs/dcachefigs.py PAPER_NAME", dcachefigs.PAPER_NAME, [v.name for v in real])
    problems.extend(f"tools/qs/dcachefigs.py: {n} is in a figure but has no paper name"
                    for n in dcachefigs.TABLE3 + dcachefigs.FIG7 + dcachefigs.FIG9
                    if not dcachefigs.PAPER_NAME.get(n))
    cover("tests/test_gdb_rcu_variants.py VIEWS", gdb_test.VIEWS, gdb_test.CASES)
    names, stems = [v.name for v in every], [v.stem for v in every]
    for where, keys, known in (("tests/test_gdb_rcu_variants.py NOT_HERE", gdb_test.NOT_HERE, names),
                               ("tools/qs/variants.py NOT_REAL", rcu.NOT_REAL, names),
                               ("tools/qs/compare.py TUNED", [s for _, s, _ in compare.TUNED], stems)):
        problems.extend(f"{where}: {k} is no variant" for k in keys if k not in known)
    readme = (repo / "docs/rcu/README.md").read_text()
    for v in every:
        src = repo / v.source
        if not re.search(rf'rcu_variant_id\[\] = "{re.escape(v.name)}"',
                         src.read_text() if src.exists() else ""):
            problems.append(f"{v.source}: missing, or it does not define rcu_variant_id \"{v.name}\"")
        cfg = repo / "configs" / v.defconfig()
        if not cfg.exists() or f"CONFIG_{v.symbol}=y" not in cfg.read_text().split("\n"):
            problems.append(f"configs/{v.defconfig()}: missing, or it does not set CONFIG_{v.symbol}=y")
        if not (repo / f"tools/gdb/rcu_{v.stem}.py").exists():
            problems.append(f"tools/gdb/rcu_<stem>.py: no qs-rcu view for {v.name}")
        if f"| `{v.name}` |" not in readme:
            problems.append(f"docs/rcu/README.md: no entry for {v.name} in the variants' table")

    help_text = subprocess.run([sys.executable, "tools/soak.py", "--help"], capture_output=True,
                               text=True).stdout
    rcu_toml = scenario.load_scenarios(repo / "tests/scenarios/rcu.toml")
    print(json.dumps(dict(
        names=names,
        compare=[s for s, _ in compare.available(2)],
        soak=soak.VARIANTS,
        soak_help=" ".join(help_text.split()),
        gdb_test=gdb_test.CASES,
        scenario=[sc.name for sc in rcu_toml],
        problems=problems)))


def run_probe(tree):
    p = subprocess.run([sys.executable, "-c", "import test_variant_list as t; t.probe()"],
                       cwd=tree, env=dict(os.environ, PYTHONPATH=f"{tree}/tools:{tree}/tests"),
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_the_reader_agrees_with_kconfiglib():
    """qs.variants reads the choice as kconfiglib does: the same symbols."""
    kconfiglib = pytest.importorskip("kconfiglib")
    cwd = os.getcwd()
    try:
        os.chdir(REPO)              # the Kconfig files source each other from the top
        kconf = kconfiglib.Kconfig("Kconfig", warn=False)
    finally:
        os.chdir(cwd)
    choice = next(c for c in kconf.choices if c.nodes[0].prompt[0] == variants.CHOICE_PROMPT)
    assert sorted(s.name for s in choice.syms) == sorted(v.symbol for v in variants.read())
    for s in choice.syms:
        assert s.nodes[0].prompt[0].split(":")[0] == variants.find(s.name[4:].lower()).name
    assert variants.read()[0].symbol == choice.defaults[0][0].name


def test_every_variant_has_its_entries():
    """Every table keyed by variant has each one (None where a paper lacks
    it), and names only variants."""
    seen = run_probe(REPO)
    assert seen["problems"] == [], "\n".join(seen["problems"])
    assert set(seen["names"]) - set(seen["soak"]) == set(variants.NOT_REAL)


def add_dummy(tree):
    """A variant as a new one starts: the Kconfig entry, the file and the
    defconfig, each after busted's."""
    kconfig = tree / "kernel/rcu/Kconfig"
    text = kconfig.read_text()
    entry = 'config RCU_DUMMY\n\tbool "dummy: a variant tests/test_variant_list.py adds"\n\n'
    text = re.sub(r"^endchoice", lambda m: entry + m.group(0), text, count=1, flags=re.M)
    kconfig.write_text(text)
    src = (tree / "kernel/rcu/rcu_busted.c").read_text()
    (tree / "kernel/rcu/rcu_dummy.c").write_text(
        src.replace('rcu_variant_id[] = "busted"', 'rcu_variant_id[] = "dummy"'))
    cfg = (tree / "configs/rcu_busted_defconfig").read_text()
    (tree / "configs/rcu_dummy_defconfig").write_text(
        cfg.replace("CONFIG_RCU_BUSTED=y", "CONFIG_RCU_DUMMY=y"))


@pytest.fixture(scope="module")
def dummy_tree(tmp_path_factory):
    tree = tmp_path_factory.mktemp("variants") / "src"
    sync_tree(tree)
    add_dummy(tree)
    return tree


def test_a_new_variant_reaches_every_tool(dummy_tree):
    seen = run_probe(dummy_tree)
    assert "dummy" in seen["names"]
    assert "dummy" in seen["compare"], "tools/qs/compare.py"
    assert "dummy" in seen["soak"], "tools/soak.py VARIANTS"
    assert re.search(r"--variants VARIANTS comma-separated, from: .*\bdummy\b", seen["soak_help"]), \
        seen["soak_help"]
    assert "dummy" in seen["gdb_test"], "tests/test_gdb_rcu_variants.py CASES"
    assert "rcu-dummy-smp1" in seen["scenario"] and "rcu-dummy-smp4" in seen["scenario"]


def test_a_new_variant_is_named_where_it_needs_a_line(dummy_tree):
    """The tables keyed by variant say what the dummy still lacks, and
    nothing else."""
    problems = run_probe(dummy_tree)["problems"]
    assert all("dummy" in p for p in problems), problems
    for table in TABLES:
        assert any(p.startswith(table) for p in problems), f"{table} did not notice: {problems}"


def test_a_new_variant_is_in_every_scenario_list(dummy_tree):
    p = subprocess.run([sys.executable, "tools/qrun.py", "scenario", "--list"], cwd=dummy_tree,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    cases = {line.split()[0] for line in p.stdout.splitlines() if line.strip()}
    want = {"rcu-dummy-smp1", "rcu-dummy-smp4", "soak-torture-fwd-dummy-smp4",
            "soak-litmus-lkmm-dummy-smp2", "torture-dummy-smp1", "torture-dummy-smp8",
            "torture-dummy-longdelay-smp2", "torture-dummy-rcu_break-smp2",
            "trace-torture-dummy-smp2"}
    assert want <= cases, sorted(want - cases)


def test_make_run_builds_the_new_variant(dummy_tree, tmp_path):
    """`make run RCU=dummy`: configs/rcu_dummy_defconfig, and of the
    variants' files only kernel/rcu/rcu_dummy.c compiled (make -n)."""
    p = subprocess.run(["make", "--no-print-directory", "-n", "RCU=dummy", f"O={tmp_path}/o",
                        "kernel"], cwd=dummy_tree, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "CONFIG_RCU_DUMMY=y" in (tmp_path / "o/.config").read_text()
    compiled = set(re.findall(r"-c (kernel/rcu/rcu_\w+\.c)", p.stdout))
    assert compiled == {"kernel/rcu/rcu_dummy.c", "kernel/rcu/rcu_tasks.c"}, compiled
