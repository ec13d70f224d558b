"""The coherence plugin's counts (tools/c2c/c2c.c), read back and named:
which symbol, per-CPU variable or kmalloc object each hot line is, which
functions and source lines touch it, per CPU, at which offsets; and each
benchmark cell's counts per operation. tools/c2c.py is the command line;
tools/figs/hashlookup.py's modelled figures read cells() from here.

Names come from the ELF the boot ran: nm for symbols (globals, statics,
the per-CPU template), addr2line -i for the code (the innermost inlined
function first, so a lock taken through a macro shows as the lock's own
function), and the guest's own allocation marks (c2c=1) for the heap:
a heap line is named by the kmalloc call site that allocated the object
covering it last before its first transfer, with the object's extent
(its size class, or its size for a large one).
"""
import bisect
import re
import subprocess
from collections import defaultdict
from pathlib import Path

from qs import REPO

PLUGIN = REPO / "build" / "c2c" / "c2c.so"
COLS = ("loads", "stores", "rmw", "xfer", "inval", "cold", "insns")
PERCPU_SLOT = 128 * 1024          # kernel/arch/x86/percpu.c


class Counts:
    """One c2c.out: per CPU, per instruction, per hot line and its accesses,
    per cell; the allocation marks."""

    def __init__(self, path):
        self.path = Path(path)
        self.cpus, self.insns, self.lines, self.acc, self.cells = {}, [], {}, [], {}
        self.allocs, self.drops = [], {}
        self.nvcpus = 0
        for raw in self.path.read_text().splitlines():
            f = raw.split()
            if not f:
                continue
            k = f[0]
            if k == "c2c":
                self.nvcpus = int(f[3])
            elif k == "drops":
                self.drops = {"lines": int(f[2]), "detail": int(f[4]), "io": int(f[6])}
            elif k == "cpu":
                self.cpus[int(f[1])] = dict(zip(COLS, map(int, f[2:9])))
            elif k == "insn":
                self.insns.append((int(f[1], 16), int(f[2]), int(f[3]),
                                   dict(zip(COLS, map(int, f[4:10])))))
            elif k == "line":
                self.lines[int(f[1], 16)] = {"pa": int(f[1], 16), "va": int(f[2], 16),
                                             "seq": int(f[3]), "xfers": int(f[4])}
            elif k == "acc":
                self.acc.append({"pa": int(f[1], 16), "pc": int(f[2], 16), "cpu": int(f[3]),
                                 "cell": int(f[4]), **dict(zip(COLS, map(int, f[5:11]))),
                                 "offsets": int(f[11], 16)})
            elif k == "cell":
                self.cells[int(f[1])] = {"id": int(f[1]), "vcpus": int(f[2]),
                                         **dict(zip(COLS, map(int, f[3:10]))),
                                         "label": " ".join(f[10:])}
            elif k == "alloc":
                self.allocs.append((int(f[1]), int(f[2], 16), int(f[3]), int(f[4], 16)))


class Elf:
    """Symbols and source lines of the kernel the boot ran."""

    def __init__(self, path):
        self.path = str(path)
        out = subprocess.run(["nm", "-n", "-S", "--defined-only", self.path], capture_output=True,
                             text=True, check=True).stdout
        self.syms = []
        for line in out.splitlines():
            f = line.split()
            if len(f) == 4:
                self.syms.append((int(f[0], 16), int(f[1], 16), f[2], f[3]))
            elif len(f) == 3:
                self.syms.append((int(f[0], 16), 0, f[1], f[2]))
        self.syms.sort()
        self.addrs = [s[0] for s in self.syms]
        self.by_name = {s[3]: s for s in self.syms}
        self._src = {}

    def symbol(self, va, code=False):
        """(name, offset) of the symbol holding va, or None."""
        i = bisect.bisect_right(self.addrs, va) - 1
        while i >= 0:
            a, size, t, name = self.syms[i]
            is_code = t in "tTwW"
            if code == is_code and (va < a + size or (size == 0 and va - a < 4096)):
                return name, va - a
            if size and va >= a + size and code == is_code:
                return None
            i -= 1
            if a < va - (1 << 20):
                break
        return None

    def sources(self, pcs):
        """pc -> [(function, file:line), ...], innermost inlined function first."""
        todo = sorted({p for p in pcs if p not in self._src})
        if todo:
            out = subprocess.run(["addr2line", "-e", self.path, "-f", "-i", "-a"] +
                                 [hex(p) for p in todo], capture_output=True, text=True).stdout
            cur, lines = None, []
            for ln in out.splitlines():
                if ln.startswith("0x") and re.fullmatch(r"0x[0-9a-f]+", ln):
                    cur = int(ln, 16)
                    self._src[cur] = lines = []
                    pending = None
                elif cur is not None:
                    if pending is None:
                        pending = ln
                    else:
                        lines.append((pending, re.sub(r" \(discriminator \d+\)", "",
                                                      ln.replace("./", "", 1))))
                        pending = None
        return {p: self._src.get(p, []) for p in pcs}


def datum(elf, va):
    """The symbol at va as the report names it: a per-CPU variable in a
    CPU's copy by its template's name; "" for none."""
    s = elf.symbol(va) if va >= 0xffffffff80000000 else None
    if not s:
        return ""
    if s[0] == "percpu_space" and "__percpu_start" in elf.by_name:
        cpu, o = divmod(s[1], PERCPU_SLOT)
        t = elf.symbol(elf.by_name["__percpu_start"][0] + o)
        if t:
            return f"{t[0]}+{t[1]:#x} (CPU {cpu})"
    return f"{s[0]}+{s[1]:#x}"


def name_line(va, seq, elf, allocs):
    """What a line is: a symbol, a per-CPU variable's copy, a kmalloc object."""
    s = elf.symbol(va)
    if s:
        name, off = s
        if name == "percpu_space" and "__percpu_start" in elf.by_name:
            cpu, o = divmod(off, PERCPU_SLOT)
            t = elf.symbol(elf.by_name["__percpu_start"][0] + o)
            if t:
                return {"kind": "percpu", "name": f"{t[0]}+{t[1]:#x}", "cpu": cpu,
                        "what": f"per-CPU {t[0]}+{t[1]:#x} (CPU {cpu}'s copy)"}
        return {"kind": "symbol", "name": f"{name}+{off:#x}", "what": f"{name}+{off:#x}"}
    best = None
    for aseq, ptr, extent, site in allocs:
        if aseq >= seq:
            break
        if ptr <= va < ptr + extent:
            best = (ptr, extent, site)
    if best:
        ptr, extent, site = best
        f = elf.symbol(site, code=True)
        where = f"{f[0]}+{f[1]:#x}" if f else hex(site)
        src = elf.sources([site - 1]).get(site - 1) or []
        loc = f" ({src[0][1]})" if src else ""
        return {"kind": "kmalloc", "name": f"kmalloc@{where}", "site": where,
                "offset": va - ptr, "extent": extent,
                "what": f"kmalloc object from {where}{loc}, +{va - ptr:#x} of {extent} bytes"}
    return {"kind": "unknown", "name": "?", "what": "not a symbol; no allocation mark covers it "
            "(page allocator, stacks, or allocated before c2c=1 took effect)"}


def offsets_str(mask):
    """Byte offsets in a line as ranges: 0x0-0x7,0x20."""
    out, i = [], 0
    while i < 64:
        if mask >> i & 1:
            j = i
            while j + 1 < 64 and mask >> (j + 1) & 1:
                j += 1
            out.append(f"{i:#x}" if i == j else f"{i:#x}-{j:#x}")
            i = j + 1
        else:
            i += 1
    return ",".join(out)


def merged(accs, key=("pa", "pc", "cpu")):
    """Accesses summed over what key leaves out (the cells, by default)."""
    out = {}
    for a in accs:
        k = tuple(a[x] for x in key)
        if k not in out:
            out[k] = dict(a)
        else:
            m = out[k]
            for c in COLS[:6]:
                m[c] += a[c]
            m["offsets"] |= a["offsets"]
    return list(out.values())


def analyse(counts, elf, top=10, cell=None):
    """The hottest lines, named, with their accesses grouped by CPU and code.
    cell None: the whole run, lines ranked by all their transfers and
    invalidations; a cell number: only what that cell did; "any": what
    every cell did (the benchmark's own lines, without its waits between
    rounds and what ran between cells)."""
    allocs = sorted(counts.allocs)
    if cell is None:
        accs = counts.acc
    elif cell == "any":
        accs = [a for a in counts.acc if a["cell"] >= 0]
    else:
        accs = [a for a in counts.acc if a["cell"] == cell]
    by_line = defaultdict(list)
    for a in merged(accs):
        by_line[a["pa"]].append(a)
    if cell is None:
        hot = sorted(counts.lines.values(), key=lambda l: -l["xfers"])[:top]
    else:
        hot = sorted(({**counts.lines[pa], "xfers": sum(a["xfer"] + a["inval"] for a in v)}
                      for pa, v in by_line.items() if pa in counts.lines),
                     key=lambda l: -l["xfers"])[:top + len(STEP_LINES)]
        # A cell's CPUs spin on a struct c2c_step between rounds
        # (c2c_step_wait()): the harness's line, not the benchmark's.
        named = [l for l in _named(hot, by_line, elf, allocs)
                 if l["name"].split("+")[0] not in STEP_LINES]
        return named[:top]
    return _named(hot, by_line, elf, allocs)


# The struct c2c_step variables of the benchmarks that run cells in step.
STEP_LINES = ("hl_step", "rt_step")


def _named(hot, by_line, elf, allocs):
    pcs = {a["pc"] for l in hot for a in by_line[l["pa"]]}
    src = elf.sources(pcs)
    out = []
    for l in hot:
        accs = []
        for a in sorted(by_line[l["pa"]], key=lambda a: (-(a["xfer"] + a["inval"]), a["cpu"])):
            chain = src.get(a["pc"]) or [("?", "?")]
            f = elf.symbol(a["pc"], code=True)
            # the datum this access touched: one line may hold several symbols
            low = (a["offsets"] & -a["offsets"]).bit_length() - 1 if a["offsets"] else 0
            accs.append({**a, "function": chain[0][0], "source": chain[0][1],
                         "datum": datum(elf, (l["va"] & ~63) + low),
                         "chain": [c[0] for c in chain],
                         "symbol": f"{f[0]}+{f[1]:#x}" if f else hex(a["pc"]),
                         "where": [c[1] for c in chain]})
        out.append({**l, **name_line(l["va"], l["seq"], elf, allocs), "accesses": accs,
                    "hitm": sum(a["xfer"] for a in accs), "invals": sum(a["inval"] for a in accs)})
    return out


def cell_view(counts, elf, cell):
    """A cell's transfers grouped by what the line is (its
    symbol, or the kmalloc site's object) and the code that caused them
    (the innermost function, and the outermost, where it was inlined):
    [(transfers, object, code, lines)], most first."""
    allocs = sorted(counts.allocs)
    accs = merged([a for a in counts.acc if a["cell"] == cell and a["xfer"]])
    src = elf.sources({a["pc"] for a in accs})
    names, groups = {}, defaultdict(lambda: [0, set()])
    for a in accs:
        l = counts.lines.get(a["pa"])
        if not l:
            continue
        if a["pa"] not in names:
            n = name_line(l["va"], l["seq"], elf, allocs)
            names[a["pa"]] = n["site"] if n["kind"] == "kmalloc" else n["name"].split("+")[0]
            if n["kind"] == "kmalloc":
                names[a["pa"]] = f"kmalloc@{n['site']}"
        chain = [c[0] for c in src.get(a["pc"]) or [("?", "?")]]
        code = chain[0] if len(chain) == 1 else f"{chain[0]} <- ... {chain[-1]}"
        g = groups[(names[a["pa"]], code, (src.get(a["pc"]) or [("", "?")])[-1][1])]
        g[0] += a["xfer"]
        g[1].add(a["pa"])
    return sorted(((v[0], k[0], k[1], k[2], len(v[1])) for k, v in groups.items()),
                  key=lambda g: -g[0])


def group_by_name(lines):
    """Transfers summed by what the lines are (a kmalloc site, a symbol)."""
    g = defaultdict(int)
    for l in lines:
        g[l["name"].split("+")[0]] += l["xfers"]
    return dict(g)


def cells_labelled(counts, cell_ops, word):
    """The cells whose label (the BENCH line's, else the mark's) has word in it."""
    out = []
    for cid, c in counts.cells.items():
        lab = (cell_ops or {}).get(("label", cid)) or c["label"]
        if word in lab.split():
            out.append(cid)
    return out


def report_text(counts, elf, top=10, per_line=8, cell_ops=None, only=None):
    """The report, in the manner of perf c2c report's: the totals, the cells
    per operation, the hottest lines and who touches them. only: a word of
    the cells' labels (a discipline: rwlock); the line view then shows what
    those cells did alone."""
    w = []
    w.append(f"Cache-line transfers in the emulator: {counts.path} ({counts.nvcpus} vCPUs, "
             f"kernel {elf.path})")
    w.append("(transfers: the line's data came from another vCPU's cache, a load or store of a "
             "line held modified elsewhere = HITM, or a fill from a clean copy elsewhere; "
             "invalidations: stores that took copies away)")
    w.append("")
    w.append("== Per vCPU")
    w.append(f"{'cpu':>4} {'insns':>12} {'loads':>11} {'stores':>11} {'rmw':>9} {'xfer':>9} "
             f"{'inval':>9} {'cold':>9}")
    for c, k in sorted(counts.cpus.items()):
        w.append(f"{c:>4} {k['insns']:>12} {k['loads']:>11} {k['stores']:>11} {k['rmw']:>9} "
                 f"{k['xfer']:>9} {k['inval']:>9} {k['cold']:>9}")
    if counts.drops.get("lines") or counts.drops.get("detail"):
        w.append(f"(table full: {counts.drops['lines']} accesses without a line, "
                 f"{counts.drops['detail']} without detail)")
    if counts.cells:
        w.append("")
        w.append("== Cells (counts over the vCPUs inside each cell, per operation where the "
                 "benchmark said how many)")
        w.append(f"{'cell':>5} {'label':<22} {'vcpus':>5} {'ops':>9} {'insns/op':>9} "
                 f"{'loads/op':>9} {'stores/op':>9} {'rmw/op':>7} {'xfer/op':>8} {'inval/op':>8}")
        for cid, c in sorted(counts.cells.items()):
            ops = (cell_ops or {}).get(cid)
            lab = (cell_ops or {}).get(("label", cid)) or c["label"]
            if ops:
                w.append(f"{cid:>5} {lab:<22} {c['vcpus']:>5} {ops:>9} "
                         f"{c['insns'] / ops:>9.1f} {c['loads'] / ops:>9.2f} "
                         f"{c['stores'] / ops:>9.2f} {c['rmw'] / ops:>7.3f} "
                         f"{c['xfer'] / ops:>8.4f} {c['inval'] / ops:>8.4f}")
            else:
                w.append(f"{cid:>5} {lab:<22} {c['vcpus']:>5} {'-':>9} {c['insns']:>9} "
                         f"{c['loads']:>9} {c['stores']:>9} {c['rmw']:>7} {c['xfer']:>8} "
                         f"{c['inval']:>8}")
    for cid, c in sorted(counts.cells.items()):
        view = cell_view(counts, elf, cid)
        if not view:
            continue
        lab = (cell_ops or {}).get(("label", cid)) or c["label"]
        ops = (cell_ops or {}).get(cid)
        w.append("")
        w.append(f"-- cell {cid} ({lab}): where its transfers went")
        for n, obj, code, where, nlines in view[:5]:
            per = f" {n / ops:.4f}/op" if ops else ""
            w.append(f"   {n:>8}{per}  {obj} ({nlines} lines)  by {code} ({where})")
    inside = bool(counts.cells)
    if only:
        chosen = set(cells_labelled(counts, cell_ops, only))
        keep = Counts.__new__(Counts)
        keep.__dict__.update(counts.__dict__)
        keep.acc = [a for a in counts.acc if a["cell"] in chosen]
        lines = analyse(keep, elf, top, cell="any")
        scope = f" (inside the cells labelled {only}: {sorted(chosen)})"
    else:
        lines = analyse(counts, elf, top, cell="any" if inside else None)
        scope = (" (transfers and invalidations inside the cells; the run's own waits and "
                 "everything between cells left out)" if inside else "")
    w.append("")
    w.append(f"== The {len(lines)} most-transferred lines{scope}")
    w.append(f"{'#':>3} {'physical':>12} {'virtual':>18} {'xfer+inval':>10}  what")
    for i, l in enumerate(lines, 1):
        w.append(f"{i:>3} {l['pa']:>#12x} {l['va'] & ~63:>#18x} {l['xfers']:>10}  {l['what']}")
    for i, l in enumerate(lines, 1):
        w.append("")
        w.append(f"-- line {i}: {l['what']} ({l['xfers']} transfers and invalidations)")
        w.append(f"   {'cpu':>3} {'loads':>9} {'stores':>9} {'rmw':>8} {'xfer':>7} {'inval':>7} "
                 f"{'offsets':<12} code")
        for a in l["accesses"][:per_line]:
            chain = " <- ".join(a["chain"][:3])
            w.append(f"   {a['cpu']:>3} {a['loads']:>9} {a['stores']:>9} {a['rmw']:>8} "
                     f"{a['xfer']:>7} {a['inval']:>7} {offsets_str(a['offsets']):<12} "
                     f"{chain} ({a['where'][-1]}"
                     f"{'; ' + a['where'][0] if len(a['where']) > 1 else ''}) [{a['symbol']}]"
                     + (f" on {a['datum']}" if a["datum"] else ""))
        if len(l["accesses"]) > per_line:
            w.append(f"   ... {len(l['accesses']) - per_line} more")
    return "\n".join(w) + "\n", lines


def bench_rows(counts, bench, name="hashlookup"):
    """The cells of a benchmark's BENCH lines that carry a c2c_cell number,
    each with the plugin's counts per operation (per_op) beside the line's
    own fields."""
    rows = []
    for b in bench:
        cid = b.get("c2c_cell")
        if b.get("bench") != name or cid is None or not b.get("ops") or cid not in counts.cells:
            continue
        c = counts.cells[cid]
        rows.append({**b, "per_op": {k: c[k] / b["ops"] for k in COLS}})
    return rows


# The RCU objects whose data are the variants' own state: what every
# variant shares in this kernel (the grace-period sequence, statistics,
# stall and lockdep checks) is left out, as the trace buffers and the
# stacks are (they are no symbol of these).
RCU_SHARED_OBJECTS = ("gp_sequence", "stats", "stall", "prove", "qs_lines")
_WRITE_COLS = ("stores", "rmw")


def rcu_symbols(build_dir):
    """Names of the data (globals, statics, per-CPU templates) and of the
    functions defined in build_dir/kernel/rcu/*.o, less RCU_SHARED_OBJECTS:
    (data names, function names)."""
    data, code = set(), set()
    for o in sorted((Path(build_dir) / "kernel" / "rcu").glob("*.o")):
        if o.stem in RCU_SHARED_OBJECTS:
            continue
        out = subprocess.run(["nm", "--defined-only", str(o)], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) != 3 or f[2].startswith("__ls."):
                continue
            (code if f[1] in "tTwW" else data).add(f[2])
    return data, code


def virt_to_phys(va):
    """include/arch/layout.h's rule: the kernel image at -2 GiB, the direct map."""
    return va - 0xffffffff80000000 if va >= 0xffffffff80000000 else va - 0xffff800000000000


def rcu_lines(counts, elf, cell, build_dir):
    """The lines of the RCU variant's own state that a cell wrote (a boot
    with the plugin's all=1, so that lines that never moved are there too):
    {pa: {name, what, writers (CPUs that stored), readers, stores, moves
    (transfers and invalidations of the stores), functions, by_cpu: the
    functions each CPU stored from, stores_at: {datum: the CPUs that
    stored to it}}. A lock's
    acquisition is a store to the lock's line, whichever function took it."""
    data, code = rcu_symbols(build_dir)
    allocs = sorted(counts.allocs)
    out = {}
    for a in counts.acc:
        if a["cell"] != cell or a["pa"] not in counts.lines:
            continue
        l = counts.lines[a["pa"]]
        if a["pa"] not in out:
            n = name_line(l["va"], l["seq"], elf, allocs)
            ours = n["kind"] == "kmalloc" and n["site"].split("+")[0] in code
            out[a["pa"]] = {"pa": a["pa"], "va": l["va"], "names": set(), "what": n["what"],
                            "ours": ours, "writers": set(), "readers": set(), "stores": 0,
                            "moves": 0, "xfer": 0, "functions": set(), "by_cpu": {},
                            "stores_at": {},
                            "name": n["name"] if ours else ""}
        e = out[a["pa"]]
        # a line may hold several variables: named by those the accesses touched
        low = (a["offsets"] & -a["offsets"]).bit_length() - 1 if a["offsets"] else 0
        d = datum(elf, (l["va"] & ~63) + low)
        if sum(a[c] for c in _WRITE_COLS):
            e["stores_at"].setdefault(d, set()).add(a["cpu"])
        if not e["name"] or e["names"]:
            m = re.match(r"([^+]+)\+(0x[0-9a-f]+)(.*)", d)
            if m and m.group(1) in data:
                e["ours"] = True
                k = (m.group(1), m.group(3))
                e["names"].add(k)
                e.setdefault("offs", {})[k] = min(int(m.group(2), 16),
                                                  e.get("offs", {}).get(k, 1 << 62))
                e["name"] = ", ".join(f"{n}+{e['offs'][(n, c)]:#x}{c}"
                                      for n, c in sorted(e["names"]))
        w = sum(a[c] for c in _WRITE_COLS)
        if w:
            e["writers"].add(a["cpu"])
            e["stores"] += w
            e["moves"] += a["xfer"] + a["inval"]
            f = elf.symbol(a["pc"], code=True)
            e["functions"].add(f[0] if f else hex(a["pc"]))
            e["by_cpu"].setdefault(a["cpu"], set()).add(f[0] if f else hex(a["pc"]))
        else:
            e["readers"].add(a["cpu"])
        e["xfer"] += a["xfer"]
    return {pa: e for pa, e in out.items() if e["ours"] and e["writers"]}


def code_xfers(counts, elf, cell, build_dir):
    """Transfers a cell's accesses by the RCU variant's own functions made,
    on any line (run queues and wait queues the variant's wake-ups touch
    included): the other measure of what its grace-period machinery moves."""
    _, code = rcu_symbols(build_dir)
    n = 0
    for a in counts.acc:
        if a["cell"] == cell and a["xfer"]:
            f = elf.symbol(a["pc"], code=True)
            if f and (f[0] in code or f[0].split(".")[0] in code):
                n += a["xfer"]
    return n
