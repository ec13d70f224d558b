"""make figures' report generator (tools/figures.py, tools/figs/) on a real
boot: the quick hash-lookup boot of tests/scenarios/hashlookup-smp2.toml
(shared with test_scenarios.py: one boot for both), drawn into a report.
Every discipline must have produced a well-formed record for every CPU
count and every update fraction, and every plot file must exist. No
timing is asserted: how large a figure is, zero included (a loaded host),
is the printed benchmark's business; check_quick_boot() is tried on
made-up boots, loaded and malformed, without QEMU.

A second test draws the whole report from made-up results of every part,
without QEMU: the renderers and the report writer on their own.
"""
import re

import pytest

import figures
from figs import DISCIPLINES, Ctx
from figs import hashlookup, machine
from qs.scenario import run_scenario, scenarios

CASE = "hashlookup-smp2"


def meta(cpus, quick=True):
    return dict(cpus=cpus, quick=quick, kvm="0", machine=machine.snapshot(), wall_s=1.0,
                load_end=machine.load(), command=f"make figures CPUS={cpus} QUICK=1")


def draw(tmp_path, cpus, store):
    ctx = Ctx(cpus=cpus, quick=True, kvm="0", out=tmp_path, host_cores=machine.host_cores())
    parts = figures.load_parts([k for k in figures.PARTS if k in store])
    sections = figures.render(ctx, parts, store)
    md, html = figures.freport.write(meta(cpus), sections, tmp_path)
    return sections, md.read_text(), html.read_text()


# The numbers every hash-lookup record carries (kernel/bench/bench_hashlookup.c).
CELL_FIELDS = ("cpus", "update_permille", "ms", "ops_per_s", "ps_per_op", "ops", "updates",
               "threads")


def check_record(cell, where):
    """A record is well formed: its numbers are there, whole and not negative.
    Their size is the benchmark's business (printed, never judged): a
    loaded host may time nothing in a cell and print zeros."""
    assert cell, f"{where}: no record"
    for k in CELL_FIELDS:
        v = cell.get(k)
        assert type(v) is int and v >= 0, f"{where}: {k}={v!r} in {cell}"
    assert cell["threads"] <= cell["cpus"], f"{where}: more threads than CPUs: {cell}"
    if cell["update_permille"] == 0:
        assert cell["updates"] == 0, f"{where}: updates where none were asked for: {cell}"


def check_quick_boot(data, cpus, log):
    """What the quick boot must have produced for the report: a well-formed
    record for every discipline on every CPU count and every update
    fraction, and for each of seed 001 Table 1's operations a cost, or the
    line in which the boot says why there is none."""
    by_cpus, by_frac = hashlookup.tables(data)
    for d in DISCIPLINES:
        for k in range(1, cpus + 1):
            check_record(by_cpus.get(d, {}).get(k), f"{d} on {k} CPUs")
    fracs = sorted(by_frac["rcu"])
    assert fracs[0] == 0 and fracs[-1] == 1000 and len(fracs) >= 3, fracs
    for d in DISCIPLINES:
        want = [0] if d == "ideal" else fracs
        got = sorted(by_frac.get(d, {}))
        assert got == want, f"{d}: Figure 5 fractions {got}, expected {want}"
        for f in got:
            check_record(by_frac[d][f], f"{d} at {f} per mille")
    for op, *_ in hashlookup.TABLE1:
        rec = data["opcost"].get(op)
        if rec is None:
            assert re.search(rf"# {op}: no figure: \S", log), \
                f"opcost {op}: neither a figure nor the line saying why"
        else:
            assert type(rec.get("ps")) is int and rec["ps"] >= 0, f"opcost {op}: {rec}"


@pytest.mark.qemu
def test_report_from_the_quick_boot(kvm, tmp_path):
    sc = next(c for c in scenarios([CASE]) if c.name == CASE)
    r, why, line = run_scenario(sc, kvm=kvm, cache=True)
    assert not why, f"{CASE}: " + "; ".join(why) + f"\n{r.tail(20)}"
    data = hashlookup.from_boot(r)
    check_quick_boot(data, r.cpus, r.log)

    sections, md, html = draw(tmp_path, r.cpus, {"hashlookup": dict(data=data, status="ok",
                                                                     wall_s=1.0)})
    (s,) = sections
    assert s.status == "ok" and len(s.pngs) == 3, (s.status, s.pngs)
    for png in s.pngs:
        assert (tmp_path / png).stat().st_size > 1000, png
        assert f"({png})" in md and f'src="{png}"' in html
    for d in DISCIPLINES:
        assert f"| {d} |" in md, f"no row for {d} in the report"
    assert "Targets" in md and "RCU's cost per lookup" in md


def fake_hashlookup(cpus):
    cells = []
    for d in DISCIPLINES:
        for k in range(1, cpus + 1):
            cells.append(dict(figure="1,4", discipline=d, cpus=k, update_permille=0, ops_per_s=
                              10_000_000 * k, ps_per_op=100_000, buckets=1024, ms=20, passes=2,
                              ops=200_000 * k, updates=0, threads=k))
        for f in ([0] if d == "ideal" else range(0, 1001, 200)):
            cells.append(dict(figure="5", discipline=d, cpus=cpus, update_permille=f,
                              ops_per_s=10_000_000 - 9000 * f, ps_per_op=100_000, ms=20,
                              ops=200_000, updates=f, threads=cpus))
    return dict(boot=dict(config="test-defconfig", cpus=cpus, accel="tcg", cmdline="x",
                          status="pass", log="x.log", variant="rcu-ltimer", preemption="none",
                          hz=250, spinlocks="ticket"),
                cells=cells, opcost={op: dict(ps=1000) for op, *_ in hashlookup.TABLE1})


NO_TRANSFER = ("    # cache_transfer: no figure: CPU 1 did not answer within a second in any "
               "of 5 runs (a loaded host?)\n")


def loaded_host_boot(cpus):
    """fake_hashlookup() as a boot on a loaded host could print it: a cell
    whose threads all started too late to time anything (zero figures, no
    update done) and no cache-transfer figure, with the line saying why."""
    data = fake_hashlookup(cpus)
    for c in data["cells"]:
        if c["discipline"] == "rwlock" and (c["figure"] == "5" and c["update_permille"] == 1000
                                            or c["figure"] == "1,4" and c["cpus"] == cpus):
            c.update(ops_per_s=0, ps_per_op=0, ops=0, updates=0, threads=0)
    del data["opcost"]["cache_transfer"]
    return data, "BENCH ...\n" + NO_TRANSFER


def test_a_loaded_hosts_quick_boot_passes():
    """Timing is no verdict: zero figures from a loaded host are figures,
    and a missing one whose absence the boot explained is no failure."""
    data, log = loaded_host_boot(2)
    check_quick_boot(data, 2, log)


def _drop(data, **match):
    data["cells"] = [c for c in data["cells"] if any(c.get(k) != v for k, v in match.items())]


MALFORMED = {
    "a discipline without its 2-CPU record":
        lambda d: _drop(d, figure="1,4", discipline="rcu", cpus=2),
    "an update fraction missing":
        lambda d: _drop(d, figure="5", discipline="brlock", update_permille=1000),
    "a figure below zero":
        lambda d: d["cells"][0].update(ops_per_s=-1),
    "a figure that is not a number":
        lambda d: d["cells"][-1].update(ps_per_op="?"),
    "a field missing":
        lambda d: d["cells"][3].pop("updates"),
    "updates at 0 per mille":
        lambda d: d["cells"][0].update(updates=5),
    "a cost that is not a number":
        lambda d: d["opcost"]["atomic_inc"].update(ps=None),
    "an operation cost missing, unexplained":
        lambda d: d["opcost"].pop("l2_hit"),
}


@pytest.mark.parametrize("what", MALFORMED)
def test_a_malformed_quick_boot_fails(what):
    """The check still fails when the boot did not produce what it must."""
    data, log = loaded_host_boot(2)
    MALFORMED[what](data)
    with pytest.raises(AssertionError):
        check_quick_boot(data, 2, log)


def fake_chat(cpus):
    def cell(stem, mode, per_s):
        return dict(variant=stem, mode=mode, rows=[dict(per_s=per_s)], why=None, accel="tcg",
                    cpu="", accel_desc="TCG", log="x.log", cmdline=f"files={mode} -- chat",
                    elapsed_s=1.0, banner=stem, per_s=per_s, per_s_median=per_s)
    res = {stem: {m: cell(stem, m, 20000 + 1000 * i + (500 if m == "rcu" else 0))
                  for m in ("rcu", "lock")} for i, stem in enumerate(["ltimer", "poll"])}
    res["sched"] = {"rcu": dict(cell("sched", "rcu", None), rows=[], why="lost a message")}
    return dict(results=res, rooms=20, clients=5, messages=50, repeat=1, cpus=cpus)


def test_report_without_boots(tmp_path):
    """Every part's renderer from made-up data; a part that failed or is
    missing still gets its section."""
    store = {"hashlookup": dict(data=fake_hashlookup(2), status="ok", wall_s=1.0),
             "ipc": dict(data=None, status="failed: no boot", wall_s=2.0),
             "route": dict(data=None, status="not available: test", wall_s=None),
             "chat": dict(data=fake_chat(2), status="ok", wall_s=1.0)}
    sections, md, html = draw(tmp_path, 2, store)
    assert [s.key for s in sections] == ["hashlookup", "ipc", "route", "chat"]
    # seed 000 Figure 11: a row per variant, its plot, a variant without numbers still listed
    chat = sections[3]
    assert chat.status == "ok" and chat.pngs == ["seed000-fig11-chat.png"], chat.pngs
    for row in ("| ltimer | 20500 | 20000 | 1.02 |", "| poll | 21500 | 21000 | 1.02 |",
                "| sched | ? | ? | ? |"):
        assert row in md, row
    assert sections[1].status.startswith("failed") and "**failed: no boot**" in md
    for png in sections[0].pngs:
        assert (tmp_path / png).exists()
    assert "<table>" in html and "seed001-fig5.png" in html


def ranked_hashlookup(cpus, accel, cpu, ns):
    """fake_hashlookup() with each discipline's own cost (ns[d] on one CPU)."""
    data = fake_hashlookup(cpus)
    for c in data["cells"]:
        if c["figure"] == "1,4":
            c["ps_per_op"] = ns[c["discipline"]] * 1000
            c["ops_per_s"] = c["cpus"] * 10 ** 12 // c["ps_per_op"]
    data["boot"].update(accel=accel, cpu=cpu,
                        accel_why="KVM (x)" if accel == "kvm" else "TCG (KVM=0)")
    return data


def test_kvm_and_tcg_side_by_side(tmp_path):
    """A KVM boot with its TCG twin: both rankings in one table, the
    rwlock/RCU ratios, and the CPU model in 'What ran'."""
    kvm = ranked_hashlookup(2, "kvm", "host,-arch-capabilities",
                            dict(ideal=10, rcu=11, brlock=30, spinlock=20, refcnt=40, rwlock=35))
    kvm["tcg"] = ranked_hashlookup(2, "tcg", "max",
                                   dict(ideal=15, rcu=17, brlock=58, spinlock=44, refcnt=83,
                                        rwlock=63))
    sections, md, html = draw(tmp_path, 2, {"hashlookup": dict(data=kvm, status="ok", wall_s=1.0)})
    assert "KVM and TCG side by side" in md
    assert "KVM (-cpu host,-arch-capabilities): ns/lookup, 1 CPU" in md and "TCG: ns/lookup" in md
    assert "| rwlock | 35 | 5 | 5 | 100% | 63 | 5 | 5 | 100% |" in md
    assert "rwlock ÷ RCU per lookup: 1 CPU 3.18, 2 CPUs 3.18" in md
    assert "rwlock ÷ RCU per lookup: 1 CPU 3.71" in md
    assert "| KVM (-cpu host,-arch-capabilities), TCG |" in md, "accelerators per part"


def test_kvm_fallback_is_said(tmp_path):
    """KVM asked for and not used: the report says why, per part."""
    data = ranked_hashlookup(2, "tcg", "max", dict(ideal=15, rcu=17, brlock=58, spinlock=44,
                                                  refcnt=83, rwlock=63))
    why = "TCG: KVM not used (-cpu host,-arch-capabilities: KVM here emulates the guest's kernel code)"
    data["boot"]["accel_why"] = why
    data["kvm_fallback"] = why
    sections, md, html = draw(tmp_path, 2, {"hashlookup": dict(data=data, status="ok", wall_s=1.0)})
    reason = why[len("TCG: "):]
    assert "KVM was asked for; " + reason in md
    assert "| TCG; " + reason + " |" in md, "the 'What ran' row says why"


def fake_dcache(cpus):
    """tools/dcachefigs.py's collect() as it returns, made up."""
    from figs import dcache
    res = []
    for i, (cfg, name) in enumerate(dcache.tool.variants(False)):
        res.append(dict(config=cfg, name=name, cpus=cpus, status="pass", log="x.log", accel="tcg",
                        cpu="max", accel_why="TCG", cmdline="-- dcachebench", variant=name,
                        dcachebench=dict(runs=3, procs=cpus, paths=128, iterations=5,
                                         ms_mean=40.0 + i, ms_std=1.0, util_mean=90.0 + i,
                                         util_std=0.5, ms=[40.0], util=[90.0]),
                        dbench=[dict(clients=c, ops_per_s=1000 * c, kb_per_s=4000, cb_count=100,
                                     cb_mean_us=(1000 if "poll" in name else 50000) * c,
                                     cb_p50_us=1000, cb_p99_us=2000, cb_max_us=3000)
                                for c in (1, 4)]))
    rows = [dict(dcache=m, cpus=n, lookups_per_s=(1000000 if m == "rcu" else 500000) * (n if m == "rcu" else 1))
            for n in (1, 2) for m in ("rcu", "lock")]
    lookups = dict(config="defconfig", cpus=cpus, status="pass", log="y.log", accel="tcg", cpu="max",
                   accel_why="TCG", cmdline="ktest=bench_fs_dcache_lookup", variant="ltimer", ms=150,
                   rows=rows)
    return dict(cpus=cpus, clients=[1, 4], seconds=1, runs=3, iterations=5, results=res,
                lookups=lookups)


def test_dcache_report_without_boots(tmp_path):
    """The dcache part's renderer: Table 3 with the paper's numbers beside,
    the Figure 7 plot and one row per variant."""
    sections, md, html = draw(tmp_path, 2, {"dcache": dict(data=fake_dcache(2), status="ok",
                                                           wall_s=1.0)})
    (s,) = sections
    assert s.status == "ok" and s.pngs == ["seed004-fig7-dcache.png"], (s.status, s.pngs)
    assert (tmp_path / s.pngs[0]).stat().st_size > 1000
    for name in ("rcu-ltimer", "rcu-poll (per-CPU)", "rcu-sched", "rcu-poll"):
        assert f"| {name} |" in md, f"no row for {name}"
    assert "77.52% (0.05%)" in md and "22.47 (0.01)" in md, "the paper's Table 3 beside ours"
    assert "1.0 / 2.0" in md, "Figure 7's cells: mean / p99 ms"
    assert "| 2 | 2000000 | 500000 | 4.00 | 2.00 | 1.00 |" in md, "dcache=rcu against dcache=lock"
    assert "RCU's rate grows more with the CPUs than the lock's" in md


def fake_thennow():
    def summary(stem, cpus):
        sync = dict(median_us=20000 * cpus, p99_us=1, min_us=1, max_us=1)
        return dict(variant=stem, sync_idle=sync, sync_busy=sync,
                    exp_idle=dict(median_us=50), exp_busy=dict(median_us=80),
                    read={"1": dict(rcu=6), str(cpus): dict(rcu=2)},
                    call_rcu=dict(queue_ns_per_call=90, callbacks_per_gp=5000))
    return dict(results={str(c): [(s, summary(s, c)) for s in ("ltimer", "tree")]
                         for c in (1, 2, 4, 8)},
                samples=5, host_cores=2, boots=[])


def test_thennow_report_without_boots(tmp_path):
    """The "2002 against today" table (tools/figs/thennow.py): a row per
    variant and CPU count, every column filled, overcommitted vCPUs said."""
    store = {"thennow": dict(data=fake_thennow(), status="ok", wall_s=1.0)}
    sections, md, html = draw(tmp_path, 2, store)
    (s,) = sections
    assert s.status == "ok", s.status
    assert "| ltimer | 8 | 160.00 | 160.00 | 0.05 | 0.08 | 6/2 | 90 | 5000 |" in md
    assert "| tree | 1 | 20.00 |" in md
    assert "overcommitted" in md


def test_semop_model_render_without_boots(tmp_path):
    """The modelled semop subsection from recorded counts: the picture,
    the transfers table and the ratio rows on both machines; RCU ahead
    wherever the global lock's line moves, even with the wait left out."""
    from figs import Section, semopmodel
    from figs.doc import Doc

    def c(mode, cpus, xfer):
        return dict(mode=mode, cpus=cpus, ops=2000 * cpus,
                    per_op=dict(insns=750.0, loads=210.0, stores=165.0, rmw=1.1, xfer=xfer,
                                inval=xfer, cold=0.0))
    model = dict(boot_s=15.7, ops=2000,
                 cells=[c("global", 1, 0.0), c("rcu", 1, 0.0), c("global", 2, 1.32),
                        c("rcu", 2, 0.005), c("global", 4, 1.1), c("rcu", 4, 0.24)])
    by = semopmodel.table(model)
    r = semopmodel.ratios(by, "p3")
    assert 0.95 < r[1] < 1.05 and r[2] > 1.3 and r[4] > 1.1, r
    doc = Doc()
    s = Section("ipc", "t", doc)
    semopmodel.render(doc, s, model, tmp_path)
    assert s.pngs and (tmp_path / s.pngs[0]).exists(), s.pngs
    text = doc.to_markdown()
    assert "Modelled, not timed" in text and "rcu ÷ global, modelled" in text, text[:500]
    doc2 = Doc()
    semopmodel.render(doc2, Section("ipc", "t", doc2), dict(error="no plugin"), tmp_path)
    assert "Not modelled: no plugin" in doc2.to_markdown()
