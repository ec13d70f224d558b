"""qs.timeline (docs/rcu/timeline.md): the grace-period checker on made-up
traces with known answers, the trace-event JSON's required fields on a real
traced torture run, and gdb's qs-trace."""
import json
import re

import pytest

from qs import boot as qboot
from qs import timeline as trace
from qs.gdb import gdb_session

KHZ = 1000      # 1 cycle = 1 us: easy numbers below


def log(events, cpus=2, entries=1024, wrapped=()):
    """A dump in the kernel's format from (cpu, tsc, event, a, b) tuples."""
    lines = [f"[    0.1] cpu0: boot", f"TRACE-HEADER tsc_khz={KHZ} cpus={cpus} "
             f"entries={entries} mode=overwrite mask=3f"]
    for cpu, tsc, ev, a, b in events:
        lines.append(f"TRACE {cpu} {tsc:x} {ev} {a:x} {b:x}")
    for cpu in range(cpus):
        n = sum(1 for e in events if e[0] == cpu)
        lines.append(f"TRACE-CPU {cpu} records={entries if cpu in wrapped else n} "
                     f"skipped=0 dropped=0")
    lines.append(f"TRACE-END records={len(events)}")
    return "\n".join(lines) + "\n"


# A good run: reader 1 spans GP 1's start, GP 1 waits for it; reader 2
# begins after GP 1 started (need not be waited for); a callback queued for
# GP 2 runs after GP 2 ends.
GOOD = [
    (0, 100, "reader_enter", 1, 0),
    (1, 110, "call_rcu", 0xc0, 2),      # GP 1 is about to start: it waits for GP 2
    (1, 120, "gp_start", 1, 0),
    (1, 150, "reader_enter", 2, 0),
    (0, 200, "reader_exit", 1, 0),
    (0, 210, "qs", 1, 0),
    (1, 215, "qs", 1, 1),
    (1, 220, "gp_end", 1, 1),
    (1, 230, "gp_start", 2, 0),
    (1, 260, "reader_exit", 2, 0),
    (1, 300, "gp_end", 2, 2),
    (1, 310, "cb_invoke", 0xc0, 0),
    (1, 320, "cb_batch", 1, 40),
    (1, 321, "cb_pending", 0, 0),
    (0, 330, "switch", (5 << 32) | 6, 1),
    (0, 340, "softirq_entry", 1, 0),
    (0, 350, "softirq_exit", 1, 0),
    (0, 360, "tick", 1, 0),
]


# Tree RCU's node tracks: two leaves (level 1) under the root (level 0).
# Leaf 1 empties at 190, leaf 2 at 205 (a partial report at 170 first),
# and its report empties the root; GP 2 starts and only leaf 1 reports.
NODES = GOOD + [
    (0, 190, "node_qs", (1 << 16) | 1, 0),
    (0, 195, "node_qs", 0, 0x2),
    (1, 170, "node_qs", (1 << 16) | 2, 0x2),
    (1, 205, "node_qs", (1 << 16) | 2, 0),
    (1, 206, "node_qs", 0, 0),
    (0, 280, "node_qs", (1 << 16) | 1, 0),
]


def test_node_tracks_run_from_the_grace_period_start_to_the_emptying_report():
    waits, reports = trace.node_waits(trace.Trace(log(NODES)))
    assert waits == {(1, 1): [(120, 190), (230, 280)], (1, 2): [(120, 205)], (0, 0): [(120, 206)]}
    assert reports[(1, 2)] == [(170, 0x2), (205, 0)]
    ev = trace.to_json(trace.Trace(log(NODES)))["traceEvents"]
    names = {e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
    assert {"rcu_node 0 (level 0)", "rcu_node 1 (level 1)", "rcu_node 2 (level 1)"} <= names
    assert sum(1 for e in ev if e.get("name") == "waits" and e["tid"] == 1001) == 2


def test_node_tracks_are_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "t.png"
    trace.to_png(trace.Trace(log(NODES)), out)
    assert out.stat().st_size > 1000


def check(events, **kw):
    return trace.check(trace.Trace(log(events, **kw)))


def test_checker_passes_a_good_trace():
    ok, text = check(GOOD)
    assert ok is True, text
    assert "2 grace periods, 2 reader sections, 1 callbacks judged" in text


def test_checker_finds_a_grace_period_inside_a_reader():
    bad = [e if e[2:4] != ("reader_exit", 1) else (0, 250, "reader_exit", 1, 0) for e in GOOD]
    ok, text = check(bad)
    assert ok is False
    assert "grace period 1 started at" in text and "reader 1" in text, text
    assert ">> cpu0" in text, "the reader's events are shown: " + text


def test_checker_finds_a_callback_run_too_early():
    bad = [e if e[2] != "cb_invoke" else (1, 290, "cb_invoke", 0xc0, 0) for e in GOOD]
    ok, text = check(bad)
    assert ok is False and "callback 0xc0" in text and "grace period 2" in text, text


def test_checker_finds_a_callback_whose_grace_period_never_ended():
    bad = [e for e in GOOD if e[2] != "gp_end" or e[3] != 2]
    bad = [e if e[2] != "cb_invoke" else (1, 400, "cb_invoke", 0xc0, 0) for e in bad]
    ok, text = check(bad)
    assert ok is False and "never ended" in text, text


def test_checker_one_cpu_lets_a_callback_join_the_grace_period_in_flight():
    """rcu-tiny: a callback queued while grace period 1 waits ends with it;
    on one CPU the quiescent state after the call_rcu covers every reader."""
    up = [(0, 90, "gp_start", 1, 0), (0, 100, "reader_enter", 1, 0), (0, 140, "reader_exit", 1, 0),
          (0, 150, "call_rcu", 0xc0, 2), (0, 170, "qs", 1, 0), (0, 171, "gp_end", 1, 1),
          (0, 300, "cb_invoke", 0xc0, 0)]
    ok, text = check(up, cpus=1)
    assert ok is True, text
    ok, text = check(up, cpus=2)        # on two CPUs grace period 2 must end first
    assert ok is False and "waits for grace period 2" in text, text


def test_checker_finds_a_callback_run_inside_a_reader_older_than_it():
    """A quiescent state taken inside a reader: the grace period numbering
    looks fine, but the callback runs under a reader that predates it."""
    up = [(0, 90, "gp_start", 1, 0), (0, 100, "reader_enter", 1, 0), (0, 150, "call_rcu", 0xc0, 2),
          (0, 170, "qs", 1, 0), (0, 171, "gp_end", 1, 1), (0, 300, "cb_invoke", 0xc0, 0),
          (0, 400, "reader_exit", 1, 0)]
    ok, text = check(up, cpus=1)
    assert ok is False and "inside reader 1" in text, text


def test_checker_with_nothing_to_judge_is_not_a_pass():
    ok, text = check([e for e in GOOD if not e[2].startswith("reader")])
    assert ok is None and "INCONCLUSIVE" in text, text


def test_checker_judges_only_the_window_every_cpu_covers():
    """cpu1's ring wrapped: nothing before its first record is judged, so a
    reader whose grace period's start may have been lost is not blamed."""
    bad = [e if e[2:4] != ("reader_exit", 1) else (0, 250, "reader_exit", 1, 0) for e in GOOD]
    bad = [e for e in bad if not (e[0] == 1 and e[1] < 150)]    # cpu1 lost its oldest
    ok, text = check(bad, wrapped=(1,))
    assert ok is not False, text


def test_checker_rejects_a_log_without_a_dump():
    with pytest.raises(ValueError):
        trace.Trace("no dump here\nTRACE-HEADER tsc_khz=1 cpus=1 entries=1 mode=overwrite\n")


def assert_trace_event_format(doc, cpus):
    """The fields the Chrome trace-event format requires of each phase."""
    assert isinstance(doc["traceEvents"], list) and doc["traceEvents"]
    phases = set()
    for ev in doc["traceEvents"]:
        for key in ("name", "ph", "pid", "tid"):
            assert key in ev, f"{key} missing: {ev}"
        ph = ev["ph"]
        phases.add(ph)
        assert isinstance(ev["pid"], int) and isinstance(ev["tid"], int)
        if ph == "M":
            assert ev["name"] in ("process_name", "thread_name", "thread_sort_index")
            assert isinstance(ev["args"], dict)
            continue
        assert isinstance(ev["ts"], (int, float)) and ev["ts"] >= 0, ev
        if ph == "X":
            assert isinstance(ev["dur"], (int, float)) and ev["dur"] > 0, ev
        elif ph == "i":
            assert ev["s"] in ("t", "p", "g"), ev
        elif ph == "C":
            assert ev["args"] and all(isinstance(v, (int, float)) for v in ev["args"].values())
        else:
            assert ph in ("B", "E"), ev
    names = {ev["args"]["name"] for ev in doc["traceEvents"] if ev["name"] == "thread_name"}
    assert names == {f"cpu{c}" for c in range(cpus)}, names
    assert {"X", "i", "C", "M"} <= phases, phases
    json.loads(json.dumps(doc))


def test_json_has_the_trace_event_fields():
    assert_trace_event_format(trace.to_json(trace.Trace(log(GOOD))), cpus=2)


# The same boot as tests/scenarios/trace-torture.toml's ltimer case: the
# runner shares it (qs.boot.boot(cache=True) keys on these parameters).
TORTURE = ("ktest=torture_rcu torture.duration=1 torture.flood=0 "
           "trace=rcu,sched,irq,torture trace.dump_at_end=1")


@pytest.mark.qemu
def test_real_trace_json_and_png(kvm, tmp_path):
    r = qboot.boot(name="test-rcu_ltimer_defconfig", defconfig="rcu_ltimer_defconfig", cpus=2,
                   cmdline=TORTURE, timeout=180, kvm=kvm, cache=True, steps=[], shell=[],
                   label="trace-torture-ltimer-smp2")
    assert r.status == "pass", r.tail()
    tr = trace.Trace(r.log)
    ok, text = trace.check(tr)
    assert ok is True, text
    doc = trace.to_json(tr)
    assert_trace_event_format(doc, cpus=2)
    assert any(ev["ph"] == "X" and ev["name"].startswith("GP ") for ev in doc["traceEvents"])
    assert any(ev["ph"] == "i" and ev["name"].startswith("QS ") for ev in doc["traceEvents"])
    trace.to_png(tr, tmp_path / "t.png", span_us=20000)
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.qemu
def test_gdb_qs_trace(defconfig_elf):
    """qs-trace reads the rings from memory: at ktest_run_selected, with
    trace=all from boot, the last records include ticks on both CPUs."""
    out, _ = gdb_session(defconfig_elf, cpus=2, cmdline="trace=all",
                         batch_cmds=["hbreak ktest_run_selected", "continue", "qs-trace 40"],
                         timeout=120)
    assert re.search(r"trace: mask 0x3f, 16384 records per CPU; the last 40:", out), out
    for cpu in (0, 1):
        assert re.search(rf"^\s+-?[\d.]+ us  cpu{cpu}\s+tick ", out, re.M), out
    assert "Python Exception" not in out, out
