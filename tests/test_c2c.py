"""The coherence plugin (tools/c2c/c2c.c) and its report (tools/c2c.py,
tools/qs/c2c.py), on one boot of make test's defconfig at -smp 2 under
the plugin: the known-behaviour ktests (kernel/test/test_c2c.c) and the
hash lookup's read-only cells. The counts asserted are the plugin's
counts of transfers, which do not depend on the host's speed: the
ktests take turns and the hash-lookup readers run in step (c2c=1), so
the bounds hold on any host. No timing is asserted.

A test without QEMU reads a made-up counts file, for the parser and the
report's format.
"""
import os
import subprocess
import sys

import pytest

from qs import REPO, costmodel
from qs.build import BuildError
from qs.c2c import COLS, Counts, Elf, analyse, cell_view, group_by_name, offsets_str, report_text

sys.path.insert(0, str(REPO / "tools"))
import c2c as c2c_tool  # noqa: E402

INCS = 2 * 1000                  # kernel/test/test_c2c.c: C2C_INCS a CPU, two CPUs


@pytest.fixture(scope="module")
def run(kvm):
    # One directory per pytest worker: two workers' boots must not write
    # (and delete) one counts file.
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    out_dir = REPO / "build" / "c2c" / f"test-selftest-smp2-{worker}"
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        r, elf, out, _ = c2c_tool.boot_case("selftest", 2, out_dir, name="test-defconfig",
                                            timeout=300)
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)
    assert r.status == "pass", f"the boot ended {r.status}\n{r.tail(30)}"
    assert out.exists(), f"the plugin wrote no {out}\n{r.tail(30)}"
    counts = Counts(out)
    return r, Elf(elf), counts, c2c_tool.bench_cells(r.console.bench)


def line_xfers(counts, elf, cell_label):
    """Transfers (not invalidations) inside the cell labelled so, by symbol."""
    (cid,) = [i for i, c in counts.cells.items() if c["label"] == cell_label]
    by = {}
    for n, obj, code, where, nlines in cell_view(counts, elf, cid):
        by[obj] = by.get(obj, 0) + n
    return by


@pytest.mark.qemu
def test_known_sharing(run):
    """One shared counter: a transfer an increment; a line each: none;
    two counters on one line: a transfer an increment, as if shared."""
    r, elf, counts, _ = run
    shared = line_xfers(counts, elf, "shared").get("c2c_shared_counter", 0)
    own = line_xfers(counts, elf, "own").get("c2c_own_counters", 0)
    false = line_xfers(counts, elf, "false").get("c2c_false_pair", 0)
    assert 0.9 * INCS <= shared <= 1.1 * INCS, f"shared counter: {shared} transfers, {INCS} increments"
    assert own <= 0.01 * INCS, f"counters on their own lines: {own} transfers, {INCS} increments"
    assert 0.9 * INCS <= false <= 1.1 * INCS, f"false sharing: {false} transfers, {INCS} increments"
    # the turn word both spin on moves too: the report must tell it apart
    assert line_xfers(counts, elf, "own").get("c2c_turn", 0) >= 0.9 * INCS


@pytest.mark.qemu
def test_hashlookup_bounds(run):
    """RCU's readers write nothing shared; an rwlock reader moves the
    bucket's lock line whenever the other CPU had it last, (N-1)/N."""
    r, elf, counts, ops = run
    per = {}
    for cid, c in counts.cells.items():
        lab = ops.get(("label", cid))
        if lab and ops.get(cid):
            per[lab] = (cid, c["xfer"] / ops[cid])
    for d in ("ideal", "rcu", "brlock", "spinlock", "refcnt", "rwlock"):
        assert f"{d} 2cpu u0" in per, f"no counts for {d} at 2 CPUs: {sorted(per)}"
    assert per["rcu 2cpu u0"][1] < 0.01, per
    assert per["rwlock 2cpu u0"][1] >= 0.35, per
    assert per["rwlock 1cpu u0"][1] < 0.01, per
    # the rwlock cell's transfers: the bucket array's lines, by read_lock()
    top = cell_view(counts, elf, per["rwlock 2cpu u0"][0])[0]
    assert top[1] == "kmalloc@hl_table_init+0x1c" or top[1].startswith("kmalloc@hl_table_init"), top
    assert "read_lock" in top[2], top
    # and nothing of RCU's read side moves a line in RCU's cell
    for n, obj, code, where, _ in cell_view(counts, elf, per["rcu 2cpu u0"][0]):
        assert "hl_loop_rcu" not in code and "rcu_read" not in code, (n, obj, code, where)


def semop_cell(kvm, case):
    """One semopbench boot of CASE at -smp 2 under the plugin, the two
    processes in step: (its cell's transfers per semop, by symbol, by
    symbol and the source line that moved it)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    out_dir = REPO / "build" / "c2c" / f"test-{case}-smp2-{worker}"
    out_dir.mkdir(parents=True, exist_ok=True)
    r, elf, out, _ = c2c_tool.boot_case(case, 2, out_dir, name="test-defconfig", timeout=300)
    assert r.status in ("pass", "poweroff") and out.exists(), f"{case}: {r.status}\n{r.tail(30)}"
    counts, named = Counts(out), Elf(elf)
    ops = c2c_tool.bench_cells(r.console.bench, r.log)
    (cid,) = [i for i, c in counts.cells.items() if c["label"] == "semop 2cpu"]
    assert ops.get(cid) == 2 * 2000, (ops, r.tail(10))
    by, by_site = {}, {}
    for n, obj, code, where, _ in cell_view(counts, named, cid):
        by[obj] = by.get(obj, 0) + n / ops[cid]
        by_site[obj, where] = by_site.get((obj, where), 0) + n / ops[cid]
    return counts.cells[cid]["xfer"] / ops[cid], by, by_site


@pytest.mark.qemu
def test_semop_ranked_by_the_lock(kvm):
    """semopbench, each process on its own semaphore set: under
    ipc=global every semop takes the one sem_ids lock, whose line moves
    whenever the other CPU took it last; under ipc=rcu the lookup writes
    nothing shared, so almost nothing moves. Nothing common to every
    system call (a global counter on the entry path once cost 1.6
    transfers a call) may sit in either cell, and semop() itself reads
    no line the tick writes (sem_otime was once stamped from jiffies:
    every CPU fetched that line again after each tick)."""
    rcu, rcu_by, rcu_sites = semop_cell(kvm, "semop")
    glob, glob_by, _ = semop_cell(kvm, "semop-global")
    ticked = {k: x for k, x in rcu_sites.items() if k[0] == "jiffies" and "kernel/ipc/" in k[1]}
    assert not ticked, ticked
    assert rcu < 0.05, rcu_by
    assert glob_by.get("sem_ids", 0) >= 0.35, glob_by
    assert glob >= rcu + 0.35, (glob, rcu)
    for by in (rcu_by, glob_by):
        common = {o: x for o, x in by.items() if o.startswith(("syscall", "c2c_"))}
        assert sum(common.values()) < 0.02, common


@pytest.mark.qemu
def test_report_of_the_boot(run):
    r, elf, counts, ops = run
    text, lines = report_text(counts, elf, top=5, cell_ops=ops, only="rwlock")
    for head in ("== Per vCPU", "== Cells", "== The 5 most-transferred lines"):
        assert head in text, head
    assert lines and lines[0]["kind"] == "kmalloc" and "hl_table_init" in lines[0]["site"], lines[0]
    assert any("read_lock" in " ".join(a["chain"]) for a in lines[0]["accesses"]), lines[0]


def test_report_format(tmp_path):
    """A made-up counts file: parsed, named (a symbol of a real ELF is not
    needed: an unknown line says so) and written in every section."""
    p = tmp_path / "c2c.out"
    p.write_text("c2c 1 vcpus 2\ncolumns " + " ".join(COLS) + "\n"
                 "drops lines 0 detail 0 io 0\n"
                 "cpu 0 10 5 1 3 2 1 100\ncpu 1 8 4 1 2 2 1 90\n"
                 "insn ffffffff80001000 1 0 0 0 1 1 1 0\n"
                 "line 1000 ffff800000001000 1 4\n"
                 "acc 1000 ffffffff80001000 0 0 0 0 1 1 1 0 f\n"
                 "acc 1000 ffffffff80001000 1 0 0 0 1 1 1 0 f0\n"
                 "cell 0 2 18 9 2 5 4 2 190 shared\n"
                 "alloc 0 ffff800000001000 64 ffffffff80001234\n")
    c = Counts(p)
    assert c.nvcpus == 2 and c.cpus[1]["insns"] == 90 and c.cells[0]["label"] == "shared"
    assert c.acc[1]["cpu"] == 1 and c.acc[1]["offsets"] == 0xf0 and c.allocs[0][2] == 64
    assert offsets_str(0xf0) == "0x4-0x7" and offsets_str(0x5) == "0x0,0x2"
    elf = REPO / "build" / "test-defconfig" / "quiescent.elf"
    if not elf.exists():
        pytest.skip("no build/test-defconfig to name lines with")
    text, lines = report_text(c, Elf(elf), cell_ops={0: 4, ("label", 0): "shared 2cpu u0"})
    assert "kmalloc object from" in lines[0]["what"], lines[0]
    assert "shared 2cpu u0" in text and "0x0-0x3" in text and "0x4-0x7" in text


@pytest.mark.qemu
def test_modelled_figures(run, tmp_path):
    """The modelled Figures 1 and 4 from this boot's counts (make figures
    draws them from its own plugin boot): drawn, and ranked by the
    mechanism, RCU with ideal and the rwlock and refcnt falling."""
    from figs import Section, hlmodel
    from figs.doc import Doc
    from qs.c2c import bench_rows
    r, elf, counts, _ = run
    rows = bench_rows(counts, r.console.bench)
    model = dict(cpus=2, boot_s=0, rounds=40,
                 cells=[{k: b[k] for k in ("figure", "discipline", "cpus", "update_permille",
                                           "ops", "updates", "per_op")} for b in rows])
    doc = Doc()
    s = Section("hashlookup", "t", doc)
    hlmodel.render(doc, s, model, tmp_path)
    assert len(s.pngs) == 2 and all((tmp_path / p).exists() for p in s.pngs), s.pngs
    by_cpus, _ = hlmodel.tables(model)
    e = {d: hlmodel.eff(by_cpus, d, 2, "p3", "low") for d in ("ideal", "rcu", "rwlock", "refcnt")}
    # The mechanism's ranking, with room for a boot's noise in the
    # instruction counts (the ideal cell was seen at 0.91 on a loaded host).
    assert e["rcu"] >= 0.85 and e["ideal"] >= 0.85, e
    assert max(e["rwlock"], e["refcnt"]) < min(e["rcu"], e["ideal"]) - 0.1, e


@pytest.fixture(scope="module")
def qslines(kvm):
    """ltimer and tree, a boot each at -smp 4 under the plugin (all=1):
    the lines of each variant's own state its grace periods wrote."""
    return {v: c2c_tool.qslines_boot(v, 4, gps=10) for v in ("ltimer", "tree")}


def _by_name(summary, word):
    return [e for e in summary["lines"] if e["name"].startswith(word)]


@pytest.mark.qemu
@pytest.mark.full
def test_qslines_ltimer_one_line_for_all(qslines):
    """rcu-ltimer's bottleneck (seed 000 section 6): every CPU's report
    writes the one control block, so its line is written by all the CPUs
    and moves several times a grace period; each CPU's counters stay on a
    line of its own."""
    d = qslines["ltimer"]
    ctrl = _by_name(d, "rcu_ctrlblk")
    assert ctrl and max(len(e["writers"]) for e in ctrl) == 4, ctrl
    assert sum(e["xfer"] for e in ctrl) >= 3 * d["grace_periods"], (ctrl, d["grace_periods"])
    for cpu in range(4):
        own = [e for e in _by_name(d, "rcu_data") if e["name"].endswith(f"(CPU {cpu})")]
        assert own and all(e["writers"] == [cpu] for e in own), (cpu, own)


def tree_leaf_violations(d, node_size, leaves):
    """Stores to Tree RCU's leaves by a CPU outside the leaf other than
    CPU 0 (the grace-period kthread's, bound there): the locality the tree
    exists for. leaves: {node index: CPUs}. Nodes are not line-aligned, so
    each store is placed by the offset it touched, not by its line."""
    bad = []
    for e in d["lines"]:
        for at, cpus in e["stores_at"].items():
            if not at.startswith("rcu_node+"):
                continue
            node = int(at.split("+")[1], 16) // node_size
            if node in leaves and set(cpus) - set(leaves[node]) - {0}:
                bad.append((at, cpus, leaves[node]))
    return bad


@pytest.mark.qemu
@pytest.mark.full
def test_qslines_tree_leaves_stay_local(qslines):
    """Tree RCU at 4 CPUs, fanout 2 and leaf fanout 2 (rcu_tree_defconfig):
    a leaf is written by its two CPUs and the kthread's CPU only, never by
    the other leaf's CPUs, whose reports reach it only through the root."""
    d = qslines["tree"]
    elf = REPO / "build" / "c2c" / "qslines-smp4" / "tree" / "quiescent.elf"
    cfg = (REPO / "build" / "c2c-tree" / ".config").read_text()
    nr = int(cfg.split("CONFIG_NR_CPUS=")[1].split()[0])
    node_size = Elf(elf).by_name["rcu_node"][1] // (2 * nr)      # RCU_MAX_NODES
    log = open(d["log"], errors="replace").read()
    assert "2 levels, 3 nodes for 4 CPUs" in log, "not the tree this test expects"
    leaves = {1: (0, 1), 2: (2, 3)}
    seen = {int(at.split("+")[1], 16) // node_size for e in d["lines"] for at in e["stores_at"]
            if at.startswith("rcu_node+")}
    assert {1, 2} <= seen, f"stores seen to nodes {sorted(seen)} only"
    bad = tree_leaf_violations(d, node_size, leaves)
    assert not bad, bad


@pytest.mark.qemu
@pytest.mark.full
def test_route_modelled(kvm, tmp_path):
    """The modelled route-cache figure (tools/figs/routemodel.py, part of
    make figures' route section) from a short plugin boot at -smp 4, the
    CPUs in step: drawn, and ranked by the mechanism at every hit
    ratio's top, full hits: an rwlock lookup moves the chain lock's line
    on top of what an RCU lookup moves (the entry's reference count), so
    more transfers a lookup and a lower modelled rate at 2 and 4 CPUs;
    on one CPU nothing moves."""
    from figs import Section, routemodel
    from figs.doc import Doc
    from qs.c2c import Counts as C
    out_dir = REPO / "build" / "c2c" / f"test-route-smp4-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    out_dir.mkdir(parents=True, exist_ok=True)
    r, elf, out, secs = c2c_tool.boot_case("route", 4, out_dir, detail=False, timeout=600,
                                           args="route_bench.c2c_rounds=5")
    assert r.status == "pass" and out.exists(), f"the boot ended {r.status}\n{r.tail(30)}"
    model = dict(cpus=4, boot_s=round(secs, 1), rounds=5, cells=routemodel.cells(C(out), r.log))
    by = routemodel.table(model, 100)
    assert {"rcu", "rwlock", "off"} <= set(by) and all(sorted(by[m]) == [1, 2, 4] for m in by), by
    for m in ("rcu", "rwlock"):
        assert by[m][1]["per_op"]["xfer"] < 0.01, (m, by[m][1]["per_op"])
    for k in (2, 4):
        rcu, rw = by["rcu"][k]["per_op"], by["rwlock"][k]["per_op"]
        assert rw["xfer"] >= rcu["xfer"] + 0.25, (k, rcu["xfer"], rw["xfer"])
        assert costmodel.throughput(rcu, k, "p3") > costmodel.throughput(rw, k, "p3"), (k, rcu, rw)
    doc = Doc()
    s = Section("route", "t", doc)
    routemodel.render(doc, s, model, tmp_path)
    assert s.pngs and (tmp_path / s.pngs[0]).exists(), s.pngs


def test_tick_line_holds_only_the_tick(defconfig_elf):
    """CPU 0's tick writes jiffies and its stamp every jiffy: any other
    variable on their cache line is invalidated on every CPU each tick
    (the plugin found the TSC's calibration and the softirq table there,
    0.05 transfers a semop at 4 CPUs). The linker script gives them a
    line of their own (__tick_line, include/compiler.h)."""
    out = subprocess.run(["nm", "-n", "-S", str(defconfig_elf)], capture_output=True, text=True,
                         check=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "bBdD":
            syms.append((int(f[0], 16), int(f[1], 16), f[3]))
    lines = {name: addr // 64 for addr, size, name in syms if name in ("jiffies", "jiffies_stamp_ns")}
    assert set(lines) == {"jiffies", "jiffies_stamp_ns"}, lines
    others = [name for addr, size, name in syms
              if name not in lines and size and
              any(l in lines.values() for l in range(addr // 64, (addr + size - 1) // 64 + 1))]
    assert not others, f"on the tick's line: {others}"
