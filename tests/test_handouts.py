"""The labs' handouts (labs/lab1-* to lab7-*/README.md) against the tools
they send a student to.

Every command a handout gives (its code blocks, and `make ...` or
`python3 tools/...` in its text) is listed in RUNS with the test that runs
it; a command added to a handout without a test, or a test left for a
command no handout gives any more, fails test_every_handout_command_runs.
make test checks, without QEMU, that each command names a real make target,
variables the Makefile reads, configurations that exist, ktests that exist
and options the tool's --help lists; that no handout points outside the
repository; and that the names a handout tells the student to look for are
in the tools' output: the columns of tools/compare.py's table, the event
and argument names of tools/timeline.py's Perfetto JSON (on a made-up
trace: the real tool, a trace in the kernel's format).
make test-full runs the commands themselves, as the handouts give them,
and checks the names against what they print.
"""
import functools
import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from qs import REPO

sys.path.insert(0, str(REPO / "tools"))

HANDOUTS = {int(re.match(r"lab(\d+)-", p.parent.name).group(1)): p
            for p in sorted((REPO / "labs").glob("lab[1-7]-*/README.md"))}


def pages(n):
    """Lab n's handout and the other pages for students beside it (Lab 4's
    harder track, HARDER.md)."""
    path = HANDOUTS[n]
    return [path] + sorted(p for p in path.parent.glob("*.md") if p != path)


def commands(text):
    """The commands of a handout: each line of its code blocks (backslash
    continuations joined; gdb's prompt lines and comments left out), and
    `make ...` / `python3 tools/...` / `tools/...` spans in its text."""
    out = []
    for block in re.findall(r"^ *```\n(.*?)^ *```", text, re.S | re.M):
        block = re.sub(r"\\\n\s*", "", block)
        for line in block.split("\n"):
            line = line.strip()
            if line and not line.startswith(("(gdb)", "#")):
                out.append(line)
    for span in re.findall(r"`((?:make|python3 tools/|tools/)[^`]*)`", text):
        out.append(re.sub(r"\s+", " ", span))
    return out


# Each command of the handouts, and the test of this file that runs it.
RUNS = {
    1: {
        "make run KVM=0 CPUS=4": "test_lab1_shell_and_ctrl_t",
        "make run": "test_lab1_shell_and_ctrl_t",
        "python3 tools/qrun.py gdb --build-dir build --cpus 4 --args '-- rcu sync; poweroff' "
        "--batch -ex qs-rcu-gp -ex continue -ex qs-rcu -ex continue -ex qs-rcu": "test_gdb_one_terminal",
        "make gdb CPUS=4": "test_interactive_commands_start",
        "make gdb": "test_interactive_commands_start",
        "make console": "test_interactive_commands_start",
        "make grade LAB=1": "test_make_grade_runs",
    },
    2: {
        "make run RCU=xrcu KVM=0 CPUS=2": "test_make_run_boots",
        "make run RCU=poll KVM=0 CPUS=2": "test_make_run_boots",
        "make run RCU=sched KPREEMPT=1 KVM=0 CPUS=2": "test_make_run_boots",
        "make compare COMPARE_CPUS=2": "test_compare_as_handed_out",
        "make compare": "test_compare_as_handed_out",
        "make figures QUICK=1": "test_figures_quick",
        "make grade LAB=2": "test_make_grade_runs",
    },
    3: {
        "make run RCU=ltimer KVM=0 CPUS=4 BOOT=kernel ARGS='ktest=lab3_table_stress,bench_lab3_table'":
            "test_make_run_boots",
        "make run RCU=busted KVM=0 CPUS=4 BOOT=kernel ARGS='ktest=lab3_table_stress'": "test_make_run_boots",
        "make grade LAB=3": "test_make_grade_runs",
    },
    4: {
        "make run RCU=student KVM=0 CPUS=2 BOOT=kernel ARGS='ktest=rcu_*'": "test_make_run_boots",
        "make run RCU=student KPREEMPT=1 KVM=0 CPUS=4 BOOT=kernel ARGS='ktest=torture_rcu torture.duration=3'":
            "test_make_run_boots",
        "make grade LAB=4": "test_make_grade_runs",
        "make grade LAB=4 GRADE_ARGS=\"--only 'torture-smp*'\"": "test_make_grade_runs",
        "make grade LAB=4 GRADE_ARGS=\"--track harder\"": "test_make_grade_runs",
        "make run RCU=student KVM=0": "test_make_run_boots",
        "make run": "test_make_run_boots",
        "make grade": "test_make_grade_runs",
        "make trace": "test_lab7_trace_names",
        "python3 tools/qrun.py gdb --build-dir build/rcu_student --cpus 2 --args '-- rcu sync; poweroff' "
        "--batch -ex qs-rcu-gp -ex continue -ex bt -ex continue -ex bt": "test_gdb_one_terminal",
        "make gdb RCU=student": "test_interactive_commands_start",
        "make console RCU=student": "test_interactive_commands_start",
    },
    5: {
        "make O=build/rt realtime_defconfig": "test_make_run_boots",
        "make run O=build/rt KVM=0 CPUS=1": "test_make_run_boots",
        "make O=build/rt-smp realtime_smp_defconfig": "test_make_run_boots",
        "make run O=build/rt-smp KVM=0 CPUS=2": "test_make_run_boots",
        "make run O=build/rt-smp KVM=0 CPUS=2 ARGS='bhlimit=0'": "test_make_run_boots",
        "make amlat": "test_amlat_as_handed_out",
        "make amlat AMLAT_ARGS=\"--seconds 5 --smp 2\"": "test_amlat_as_handed_out",
        "tools/amlat.py --smp 2 --args bhlimit=N": "test_amlat_as_handed_out",
        "python3 tools/qrun.py gdb --build-dir build/rt --cpus 1 --args 'ktest=bench_amlat amlat.seconds=2' "
        "--batch -ex 'break rcu_offload' -ex continue -ex bt -ex qs-rcu": "test_gdb_one_terminal",
        "make gdb O=build/rt CPUS=1 ARGS='ktest=bench_amlat'": "test_interactive_commands_start",
        "make grade LAB=5": "test_make_grade_runs",
    },
    6: {
        "mkdir -p build/lab6": "test_lab6_steps_as_handed_out",
        "make run BOOT=kernel KVM=0 CPUS=4 ARGS='ktest=lab6_slow_gp lab6.seed=8 trace=rcu,sched,softirq,irq "
        "trace.size=8192 trace.dump_at_end=1' | tee build/lab6/console.log": "test_lab6_steps_as_handed_out",
        "python3 tools/timeline.py png build/lab6/console.log -o build/lab6/timeline.png":
            "test_lab6_steps_as_handed_out",
        "python3 tools/timeline.py json build/lab6/console.log -o build/lab6/trace.json":
            "test_lab6_steps_as_handed_out",
        "make replay CONFIG=defconfig CPUS=4 ARGS='ktest=lab6_slow_gp lab6.seed=8'": "test_lab6_replay",
        "make replay CONFIG=defconfig CPUS=4 ARGS='ktest=lab6_slow_gp lab6.seed=8' STOP=T": "test_lab6_replay",
        "make grade LAB=6": "test_make_grade_runs",
    },
    7: {
        "python3 tools/compare.py --cpus 1 --variants ltimer,tree": "test_lab7_compare_columns",
        "python3 tools/compare.py --cpus 2 --variants ltimer,tree": "test_lab7_compare_columns",
        "python3 tools/compare.py --cpus 4 --variants ltimer,tree": "test_lab7_compare_columns",
        "make run RCU=tree KVM=0 CPUS=8 BOOT=kernel ARGS='ktest=rcu_tree_report_*'": "test_make_run_boots",
        "python3 tools/qrun.py gdb --build-dir build/rcu_tree --cpus 4 --args '-- rcu sync; poweroff' "
        "--batch -ex qs-rcu-gp -ex continue -ex qs-rcu -ex 'break rcu_node_report_qs' -ex continue "
        "-ex qs-rcu -ex bt -ex continue -ex qs-rcu -ex bt -ex continue -ex qs-rcu -ex bt":
            "test_gdb_one_terminal",
        "make trace RCU=tree CPUS=4": "test_lab7_trace_names",
        "make run RCU=tree KVM=0 CPUS=2 BOOT=kernel ARGS='ktest=rcu_tree_report_* lab7=test'":
            "test_make_run_boots",
        "make grade LAB=7 GRADE_ARGS=\"--only report-unit\"": "test_make_grade_runs",
        "make run RCU=tree KVM=0 CPUS=8 BOOT=kernel ARGS='ktest=torture_rcu torture.duration=3 lab7=on'":
            "test_make_run_boots",
        "make grade LAB=7": "test_make_grade_runs",
        "tools/compare.py": "test_lab7_compare_columns",
        "make compare": "test_compare_as_handed_out",
        "make gdb RCU=tree CPUS=4": "test_interactive_commands_start",
        "make console RCU=tree CPUS=4": "test_interactive_commands_start",
        "tools/timeline.py": "test_lab7_trace_names",
    },
}


# ---------------------------------------------------------------- no QEMU
def test_every_handout_command_runs_in_a_test():
    assert sorted(HANDOUTS) == [1, 2, 3, 4, 5, 6, 7]
    for n in HANDOUTS:
        given = {c for page in pages(n) for c in commands(page.read_text())}
        listed = set(RUNS[n])
        assert given <= listed, f"lab {n}: commands no test runs: {sorted(given - listed)}"
        assert listed <= given, f"lab {n}: RUNS lists commands its handout no longer gives: " \
                                f"{sorted(listed - given)}"
        for test in RUNS[n].values():
            assert callable(globals().get(test)), f"lab {n}: no test {test}"


@functools.cache
def makefile_rules():
    text = (REPO / "Makefile").read_text()
    return text, set(re.findall(r"^([a-z][\w-]*):", text, re.M))


@functools.cache
def ktests():
    names = set()
    for p in list((REPO / "kernel").rglob("*.c")) + list((REPO / "modules").rglob("*.c")):
        names |= set(re.findall(r"^KTEST(?:_MANUAL)?\((\w+)\)", p.read_text(errors="replace"), re.M))
    return names


@functools.cache
def tool_help(tool, sub=None):
    cmd = [sys.executable, str(REPO / tool)] + ([sub] if sub else []) + ["--help"]
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120).stdout


ALL = [(n, c) for n in sorted(RUNS) for c in RUNS[n]]


@pytest.mark.parametrize("n,cmd", ALL, ids=[f"lab{n}-{i}" for i, (n, c) in enumerate(ALL)])
def test_command_names_what_exists(n, cmd):
    """Targets, variables, configurations, ktests and options that exist."""
    words = shlex.split(cmd.split("|")[0])
    text, rules = makefile_rules()
    args = " ".join(w[5:] for w in words if w.startswith("ARGS="))
    for pattern in re.findall(r"ktest=(\S+)", args):
        for one in pattern.split(","):
            rx = re.compile(re.escape(one).replace(r"\*", r"\w*") + "$")
            assert any(rx.match(k) for k in ktests()), f"{cmd}: no ktest {one}"
    if words[0] == "make":
        targets = [w for w in words[1:] if "=" not in w]
        for t in targets:
            assert t in rules or (REPO / "configs" / t).exists(), f"{cmd}: no make target {t}"
        for w in words[1:]:
            if "=" in w:
                var = w.split("=", 1)[0]
                assert re.search(rf"\$\({var}\)|^{var}\s*\??[:?]?=", text, re.M), \
                    f"{cmd}: the Makefile does not read {var}"
        vals = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        if "RCU" in vals:
            kp = "_kpreempt" if vals.get("KPREEMPT") == "1" else ""
            cfg = REPO / "configs" / f"rcu_{vals['RCU'].replace('-', '_')}{kp}_defconfig"
            assert cfg.exists(), f"{cmd}: no {cfg.relative_to(REPO)}"
        if "LAB" in vals:
            assert list((REPO / "labs").glob(f"lab{vals['LAB']}-*/grade.toml")), cmd
        if "CONFIG" in vals:
            assert (REPO / "configs" / vals["CONFIG"]).exists(), cmd
        if "AMLAT_ARGS" in vals:
            help_ = tool_help("tools/amlat.py")
            for opt in re.findall(r"--[\w-]+", vals["AMLAT_ARGS"]):
                assert opt in help_, f"{cmd}: tools/amlat.py has no {opt}"
        if "GRADE_ARGS" in vals:
            assert all(o in tool_help("tools/grade.py")
                       for o in re.findall(r"--[\w-]+", vals["GRADE_ARGS"])), cmd
    elif words[0] in ("python3", "tools/amlat.py", "tools/compare.py", "tools/timeline.py"):
        tool = words[1] if words[0] == "python3" else words[0]
        assert (REPO / tool).is_file(), cmd
        rest = words[2:] if words[0] == "python3" else words[1:]
        sub = rest[0] if rest and not rest[0].startswith("-") and tool != "tools/amlat.py" else None
        help_ = tool_help(tool, sub)
        for opt in [w for w in rest if re.fullmatch(r"--?[\w-]+", w)]:
            assert re.search(rf"(^|\s|\[){re.escape(opt)}\b", help_), f"{cmd}: {tool} has no {opt}"
        if sub:
            assert sub in tool_help(tool), f"{cmd}: {tool} has no {sub}"
    else:
        assert words[0] == "mkdir", cmd


def test_no_handout_points_outside_the_repository():
    for n, path in ((n, page) for n in HANDOUTS for page in pages(n)):
        text = path.read_text()
        assert not re.search(r"/work/|shared/seeds|~/|\.\./\.\./\.\.", text), f"lab {n}"
        for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if re.match(r"\w+://", link):
                continue
            target = (path.parent / link).resolve()
            assert target.is_relative_to(REPO) and target.exists(), f"lab {n}: {link}"
        for seed in re.findall(r"[Ss]eed (\d{3})", text):
            assert seed in {"000", "001", "002", "003", "004"}, f"lab {n}: seed {seed}"


def backticked(text, start, end):
    """The `names` of the handout between two phrases."""
    part = text[text.index(start):text.index(end)]
    return [re.sub(r"\s+", " ", w) for w in re.findall(r"`([^`]+)`", part)]


# The names Lab 7's compare step promises, each a column of the table.
COMPARE_COLUMNS = ["read 1 (rcu/rwlock)", "sync idle", "sync busy", "gp mean idle/busy ms",
                   "cbs/gp", "idle cycles switch/tick"]


def fake_results():
    sync = dict(min_us=1000, median_us=8000, p99_us=9000, max_us=9500, grace_periods=200,
                gp_mean_us=7900)
    return [("ltimer", {"variant": "ltimer", "read": {1: {"rcu": 3, "rwlock": 40}},
                        "sync_idle": sync, "sync_busy": sync})]


def header(table):
    return [c.strip() for c in table.split("\n")[0].strip("|").split("|")]


def test_lab7_compare_step_names_its_columns():
    """The table Lab 7 step 2 describes: each name it gives is a column,
    at every CPU count it runs, and no column repeats (-smp 1)."""
    from qs import compare
    text = HANDOUTS[7].read_text()
    named = backticked(text, "Each takes a few minutes", "Keep the")
    for col in COMPARE_COLUMNS:
        assert f"`{col}`" in text or col in " ".join(named), f"the handout does not name {col}"
    for cpus in (1, 2, 4):
        head = header(compare.table(fake_results(), cpus))
        assert len(head) == len(set(head)), f"-smp {cpus}: a column repeats: {head}"
        for col in COMPARE_COLUMNS:
            assert any(h.startswith(col) for h in head), f"-smp {cpus}: no column {col}: {head}"
        for name in named:
            if not name.startswith(("synchronize_kernel", "build/", "read N")):
                assert any(name in h for h in head), f"-smp {cpus}: the handout's {name} is no column"


def made_up_trace(tree=False):
    """A trace dump in the kernel's format: two CPUs, one grace period that
    CPU 1 reports for both (the kthread's report for idle CPU 0)."""
    lines = ["TRACE-HEADER tsc_khz=1000000 cpus=2 entries=4096 mode=overwrite mask=f"]
    ev = []
    for t in range(0, 20, 4):
        for cpu in range(2):
            ev += [(t * 1000000 + cpu, cpu, "tick", 1, 0),
                   (t * 1000000 + cpu + 10, cpu, "softirq_entry", 4, 0),
                   (t * 1000000 + cpu + 20, cpu, "softirq_exit", 4, 0)]
    ev += [(1000000, 0, "gp_start", 1, 0), (2000000, 1, "switch", 1 << 32 | 2, 1),
           (3000000, 1, "qs", 1, 1), (5000000, 1, "qs", 1, 0),
           (5500000, 1, "tasklet_entry", 0xffffffff80001000, 0),
           (5600000, 1, "tasklet_exit", 0xffffffff80001000, 0), (6000000, 1, "gp_end", 1, 1)]
    if tree:
        ev += [(3000001, 1, "node_qs", 1 << 16 | 0, 0x1), (5000001, 1, "node_qs", 1 << 16 | 0, 0),
               (5000002, 1, "node_qs", 0, 0)]
    for tsc, cpu, name, a, b in sorted(ev):
        lines.append("TRACE %d %x %s %x %x" % (cpu, tsc, name, a, b))
    lines += ["TRACE-CPU %d records=30 skipped=0 dropped=0" % c for c in range(2)]
    lines.append("TRACE-END records=60")
    return "\n".join(lines) + "\n"


def perfetto(log_path, out):
    p = subprocess.run([sys.executable, str(REPO / "tools" / "timeline.py"), "json", str(log_path),
                        "-o", str(out)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    d = json.loads(Path(out).read_text())
    return d["traceEvents"] if isinstance(d, dict) else d


def known(name, events):
    """Whether a name the handout gives is an event's (`GP n`, `QS cpuN`,
    `softirq 4`: n and N stand for numbers), a prefix of one (`tasklet`,
    `QS`), a track's (`rcu_node N (level L)`) or an argument's."""
    rx = re.sub(r"(?<![A-Za-z])[nNL](?![A-Za-z])|(?<=cpu)N", lambda m: r"\d+", re.escape(name))
    rx = rx.replace(r"0x\.\.\.", "0x[0-9a-f]+")
    names = {e.get("name", "") for e in events} | \
        {e["args"]["name"] for e in events if e.get("ph") == "M" and "name" in e.get("args", {})}
    args = {k for e in events for k in e.get("args", {})}
    return name in args or any(re.fullmatch(rx, x) or x.startswith(name + " ") or x == name
                               for x in names)


# The stretches of the handouts that name Perfetto's events, and the
# backticked words there that are not event names (paths, keys, code).
PERFETTO_PARTS = {
    6: ("At <https://ui.perfetto.dev>", "4. Find the slowest", False),
    7: ("open `build/trace/tree/trace.json` in Perfetto", "How many reports reached", True),
}
NOT_EVENTS = re.compile(r"/|\.json$|\.png$|^[a-z]$|^rcu_ctrlblk|\(\)$")


@pytest.mark.parametrize("n", sorted(PERFETTO_PARTS))
def test_perfetto_names_in_the_handout_are_timeline_json(n, tmp_path):
    start, end, tree = PERFETTO_PARTS[n]
    log = tmp_path / "console.log"
    log.write_text(made_up_trace(tree))
    events = perfetto(log, tmp_path / "trace.json")
    names = [w for w in backticked(HANDOUTS[n].read_text(), start, end) if not NOT_EVENTS.search(w)]
    assert names, f"lab {n}: no names found"
    missing = [w for w in names if not known(w, events)]
    assert not missing, f"lab {n}: the handout names {missing}; the JSON has " \
                        f"{sorted({e.get('name') for e in events})}"


# ---------------------------------------------------------------- the commands, make test-full
def sh(cmd, timeout=600, stdin=None, cwd=REPO):
    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=cwd, capture_output=True,
                       text=True, timeout=timeout, input=stdin)
    return p.returncode, p.stdout + p.stderr


# Labs whose `make run` commands test the student's finished work: they
# run in a scratch copy of the tree with the model answer in place (the
# handed-out stub would hang Tree RCU under lab7=on, or rcutorture).
MODEL = {4: {"kernel/rcu/rcu_student.c": "labs/instructor/lab4/rcu_student.c"},
         7: {"kernel/rcu/lab7_report.c": "labs/instructor/lab7/lab7_report.c"}}


def tree_with_model(n):
    from qs.sync_tree import sync_tree
    dst = REPO / "build" / "handouts" / f"lab{n}" / "src"
    sync_tree(dst)
    for target, src in MODEL[n].items():
        (dst / target).write_bytes((REPO / src).read_bytes())
    return dst


def handout_command(n, start):
    """The command of lab n's handout that begins with start (so the test
    runs what the handout says, not a copy of it)."""
    found = [c for c in commands(HANDOUTS[n].read_text()) if c.startswith(start)]
    assert found, f"lab {n}: no command {start}"
    return found[0]


@pytest.mark.qemu
@pytest.mark.full
def test_lab1_shell_and_ctrl_t():
    """Steps 1-3 at `make run`'s prompt: the counters step 2 names, and
    Ctrl-T's statistics (per-CPU callbacks, the latency histogram)."""
    from qs.boot import boot
    r = boot(name="test-defconfig", defconfig="defconfig", cpus=4, timeout=120,
             steps=[(r"\$ ", "rcu\n")],
             shell=["rcu sync", "rcu call 100", "rcu", "rcu barrier", "\x14", "poweroff"])
    text = r.console.text if hasattr(r.console, "text") else Path(r.log_path).read_text()
    for name in ("grace periods started", "completed", "callbacks queued", "invoked",
                 "synchronize_rcu() returned", "config: HZ=", "rcu: ltimer (",
                 "---- statistics (Ctrl-T) ----"):
        assert name in text, f"no {name!r} in {r.log_path}"
    assert re.search(r"latency|histogram", text, re.I), r.log_path


# Each handout's one-terminal gdb step: what builds the machine it names
# (the handout's earlier steps do), and what gdb must print.
GDB_STEPS = {
    1: (["make -s kernel"], ["Breakpoint 1, rcu_gp_begin",
                             "CPUs that still owe batch 1 a quiescent state:",
                             "Breakpoint 2, rcu_gp_end"]),
    # On the handed-out skeleton: gdb attaches and sets its breakpoints.
    4: (["make -s kernel RCU=student"], ["breakpoint 1 at"]),
    5: (["make O=build/rt realtime_defconfig", "make -s O=build/rt kernel"],
        ["rcu_offload", "donelist", "krcud"]),
    7: (["make -s kernel RCU=tree"], ["rcu_gp_begin", "rcu_node_report_qs", "qsmask"]),
}


@pytest.mark.qemu
@pytest.mark.full
@pytest.mark.parametrize("n", sorted(GDB_STEPS))
def test_gdb_one_terminal(n):
    builds, names = GDB_STEPS[n]
    for cmd in builds:
        subprocess.run(cmd.split(), cwd=REPO, check=True, timeout=900)
    code, out = sh(handout_command(n, "python3 tools/qrun.py gdb"), timeout=300)
    assert code == 0, out[-3000:]
    for name in names:
        assert name in out, f"no {name!r}: {out[-3000:]}"


@pytest.mark.qemu
@pytest.mark.full
def test_interactive_commands_start():
    """make gdb and make console wait for a person: each must start (gdb
    attached, or the console find its socket), which -n cannot show, so
    they are dry-run here and their batch twins run above."""
    for n in HANDOUTS:
        for cmd in RUNS[n]:
            if RUNS[n][cmd] == "test_interactive_commands_start":
                code, out = sh(cmd.replace("make ", "make -n ", 1), timeout=120)
                assert code == 0 and "tools/" in out, f"{cmd}: {out[-2000:]}"


RUN_CHECKS = {
    # A line each boot must print, and that it ends by itself (BOOT=kernel
    # with a ktest powers off) or is ended by the shell's poweroff.
    "make run RCU=tree KVM=0 CPUS=8 BOOT=kernel ARGS='ktest=rcu_tree_report_*'":
        r"rcu \(tree\): 3 levels, 7 nodes for 8 CPUs \(fanout 2, leaf fanout 2\)",
}


@pytest.mark.qemu
@pytest.mark.full
def test_make_run_boots():
    """Every `make run` of the handouts, as given; where it would give the
    student the shell's prompt, the shell runs `poweroff` (an init script
    after `--` in ARGS) instead of waiting for a person: it boots, and
    prints what the handout says it prints."""
    bad = []
    for n in HANDOUTS:
        for cmd in RUNS[n]:
            if RUNS[n][cmd] != "test_make_run_boots":
                continue
            run = cmd
            if cmd.startswith("make run") and "ktest=" not in cmd:
                m = re.search(r"ARGS='([^']*)'", cmd)
                run = (cmd.replace(m.group(0), f"ARGS='{m.group(1)} -- poweroff'") if m
                       else cmd + " ARGS='-- poweroff'")
            code, out = sh(run, timeout=900, cwd=tree_with_model(n) if n in MODEL else REPO)
            if not cmd.startswith("make run"):
                if code:
                    bad.append(f"{cmd}: status {code}: {out[-1500:]}")
                continue
            if "rcu: " not in out:
                bad.append(f"{cmd}: no rcu: line: {out[-1500:]}")
            rx = RUN_CHECKS.get(cmd)
            if rx and not re.search(rx, out):
                bad.append(f"{cmd}: no /{rx}/")
    assert not bad, "\n".join(bad)


@pytest.mark.qemu
@pytest.mark.full
def test_make_grade_runs():
    """Every `make grade` of the handouts on the handed-out files: it runs
    to a score (0 on the graded checks, exit status 1) or lists the labs."""
    for n in HANDOUTS:
        for cmd in RUNS[n]:
            if RUNS[n][cmd] != "test_make_grade_runs":
                continue
            code, out = sh(cmd, timeout=1800)
            if cmd == "make grade":
                assert code == 0 and "LAB=1" in out, out[-2000:]
            else:
                assert code in (1, 2) and re.search(r"Score: \d+/\d+", out), f"{cmd}: {out[-2000:]}"


@pytest.mark.qemu
@pytest.mark.full
def test_lab6_steps_as_handed_out():
    """Steps 1-3 as given: the boot's `ok 1 lab6_slow_gp` and TRACE lines,
    the picture, and the JSON with the names step 3 gives."""
    for start in ("mkdir -p build/lab6", "make run BOOT=kernel", "python3 tools/timeline.py png",
                  "python3 tools/timeline.py json"):
        code, out = sh(handout_command(6, start), timeout=900)
        assert code == 0, f"{start}: {out[-2000:]}"
    log = (REPO / "build" / "lab6" / "console.log").read_text()
    assert re.search(r"^ok 1 lab6_slow_gp", log, re.M) and "TRACE " in log
    assert (REPO / "build" / "lab6" / "timeline.png").stat().st_size > 0
    d = json.loads((REPO / "build" / "lab6" / "trace.json").read_text())
    events = d["traceEvents"] if isinstance(d, dict) else d
    start, end, _ = PERFETTO_PARTS[6]
    for w in backticked(HANDOUTS[6].read_text(), start, end):
        if not NOT_EVENTS.search(w):
            assert known(w, events), f"the handout names {w}; not in the real trace"


@pytest.mark.qemu
@pytest.mark.full
def test_lab6_replay():
    """Step 7: the deterministic run's one line names its log, which holds
    the console; STOP=T (T just after the ktest began, as a student reads
    it there) stops gdb, which runs qs-rcu typed at its prompt."""
    code, out = sh(handout_command(6, "make replay"), timeout=900)
    m = re.search(r"^PASS\s+replay .* log=(\S+)", out, re.M)
    assert code == 0 and m, out[-2000:]
    log = (REPO / m.group(1)).read_text()
    t = re.search(r"^\[\s*([\d.]+)\] cpu\d+: ktest: running lab6_slow_gp", log, re.M)
    assert t and re.search(r"^ok 1 lab6_slow_gp", log, re.M), m.group(1)
    stop = handout_command(6, "make replay CONFIG=defconfig CPUS=4 ARGS='ktest=lab6_slow_gp "
                              "lab6.seed=8' STOP=T").replace("STOP=T", f"STOP={float(t.group(1)) + 0.1:.3f}")
    code, out = sh(stop, timeout=900, stdin="qs-rcu\nquit\n")
    assert "replay: stopped at" in out and "grace periods" in out, out[-2000:]


@pytest.mark.qemu
@pytest.mark.full
def test_lab7_trace_names():
    """Part 2 step 3: make trace, then the names the handout gives, in the
    real trace.json."""
    code, out = sh(handout_command(7, "make trace"), timeout=900)
    assert code == 0, out[-2000:]
    d = json.loads((REPO / "build" / "trace" / "tree" / "trace.json").read_text())
    events = d["traceEvents"] if isinstance(d, dict) else d
    start, end, _ = PERFETTO_PARTS[7]
    missing = [w for w in backticked(HANDOUTS[7].read_text(), start, end)
               if not NOT_EVENTS.search(w) and not known(w, events)]
    assert not missing, missing


@pytest.mark.qemu
@pytest.mark.full
def test_lab7_compare_columns():
    """Part 1 step 2 at 1 CPU (each CPU count is the same tool): the
    table's columns are the ones the handout names, none repeated."""
    code, out = sh(handout_command(7, "python3 tools/compare.py --cpus 1"), timeout=1800)
    assert code == 0, out[-2000:]
    table = (REPO / "build" / "compare" / "table-smp1.md").read_text()
    head = header(table)
    assert len(head) == len(set(head)), head
    for col in COMPARE_COLUMNS:
        assert any(h.startswith(col) for h in head), (col, head)
    assert re.search(r"^\| tree \|", table, re.M) and re.search(r"^\| ltimer \|", table, re.M), table


@pytest.mark.qemu
@pytest.mark.full
def test_compare_as_handed_out():
    code, out = sh("make compare COMPARE_CPUS=2", timeout=3600)
    assert code == 0, out[-2000:]
    assert (REPO / "build" / "compare" / "table-smp2.md").exists()


@pytest.mark.qemu
@pytest.mark.full
def test_figures_quick():
    code, out = sh("make figures QUICK=1", timeout=3600)
    assert code == 0, out[-2000:]


@pytest.mark.qemu
@pytest.mark.full
def test_amlat_as_handed_out():
    for cmd in ("make amlat", 'make amlat AMLAT_ARGS="--seconds 5 --smp 2"',
                "python3 tools/amlat.py --smp 2 --args bhlimit=64"):
        code, out = sh(cmd, timeout=3600)
        assert code == 0, f"{cmd}: {out[-2000:]}"
    assert list((REPO / "build" / "amlat").iterdir())


def test_grade_toml_is_what_handouts_grade():
    """Each handout's "What is graded" names the lab's graded checks."""
    for n, path in HANDOUTS.items():
        spec = tomllib.loads(next(path.parent.glob("grade.toml")).read_text())
        total = sum(c.get("points", 0) for c in spec["check"])
        text = path.read_text()
        assert re.search(rf"make grade LAB={n}`?, {total} points", text), f"lab {n}: {total} points"
