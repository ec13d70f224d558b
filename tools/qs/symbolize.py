"""The one symbolizer: addresses in a console log to function, file:line.

The kernel prints code addresses as `func+0x1a/0x80` (%pS, its embedded
symbol table: kernel/core/ksyms.c), in Call Traces, KASAN's reports, RIP
lines and stall warnings. This module adds the source line of each from
the ELF's debug information (addr2line underneath), so that a report
reads "ktest_fn_x+0x9e/0x160  kernel/test/test_kasan.c:209". KASAN's
tests, the test runner (every failed case's log), KCSAN, the fuzzer and
the graders call symbolize(); tools/symbolize.py is its command line.

    from qs.symbolize import symbolize
    text = symbolize(log_text, "build/test-defconfig/quiescent.elf")

A %pS is already the address to look up (traces print the return address
less one, the call itself), so `func+off` is resolved as the symbol's
address plus off. A static name several files define (reader_fn) is
the copy a Call Trace frame's own address falls in, else the one copy of
the printed size; where neither tells them apart the line is left
without a place. Inlined code names the innermost line, then the
functions it was inlined into. Module symbols (`func+0x1/0x2 [mod]`) are
left as they are.
"""
import functools
import re
import subprocess
from pathlib import Path

SYM = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\+0x([0-9a-f]+)/0x[0-9a-f]+(?! \[)")


SYM_SIZE = re.compile(r"/0x([0-9a-f]+)$")
# A Call Trace frame: the address printed before its %pS
FRAME_ADDR = re.compile(r"\[<([0-9a-f]{8,16})>\]\s+$")


def _kernel_table():
    """tools/mksyms.py's text_symbols(): the symbols the kernel's own table
    holds, whose sizes are what its func+off/size prints."""
    import importlib.util
    path = Path(__file__).resolve().parent.parent / "mksyms.py"
    spec = importlib.util.spec_from_file_location("mksyms", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.text_symbols


@functools.lru_cache(maxsize=8)
def _symbols(elf, mtime):
    """{name: [(address, size), ...]}: a static name several files define
    (reader_fn, busy_fn) has one entry per copy. The size is the kernel's
    (kernel/core/ksyms.c: up to the next symbol of its table), not the
    ELF's, so that it can be compared with the one a report printed."""
    out = subprocess.run(["nm", "-n", "--defined-only", str(elf)], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, check=True).stdout
    table = _kernel_table()(out.splitlines())
    syms = {}
    for i, (a, name) in enumerate(table):
        size = table[i + 1][0] - a if i + 1 < len(table) else 0
        syms.setdefault(name, []).append((a, size))
    return syms


def _address(copies, off, size, raw=None):
    """The address func+off names: the copy raw (the frame's own address)
    falls in, else the one copy of the printed size; None when neither
    tells the copies apart (no line is better than another file's)."""
    if raw is not None:
        hit = [a for a, sz in copies if a <= raw < a + max(sz, 1)]
        if hit:
            return hit[0] + off
    if len(copies) == 1:
        return copies[0][0] + off
    fit = [a for a, sz in copies if sz == size]
    return fit[0] + off if len(fit) == 1 else None


def _addr2line(elf, addrs):
    """{address: [(function, "file:line"), ...]} innermost first."""
    if not addrs:
        return {}
    out = subprocess.run(["addr2line", "-e", str(elf), "-f", "-i", "-a"] + [hex(a) for a in addrs],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    res, cur = {}, None
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("0x"):
            cur = int(line, 16)
            res[cur] = []
            i += 1
            continue
        if cur is not None and i + 1 < len(lines):
            loc = lines[i + 1].split(" (discriminator")[0]
            if "//" in loc:             # NASM's: the directory, then the path again
                loc = loc.rsplit("//", 1)[1]
            if loc.startswith("./"):
                loc = loc[2:]
            if not loc.startswith("??"):
                res[cur].append((line, loc))
        i += 2
    return res


def resolve(elf, names):
    """{"func+0xoff/0xsize": [(function, "file:line"), ...]} for the given
    %pS strings; "func+0xoff/0xsize@ADDR" where a frame printed its address."""
    elf = Path(elf)
    syms = _symbols(str(elf), elf.stat().st_mtime)
    want = {}
    for n in names:
        pS, _, raw = n.partition("@")
        m = SYM.fullmatch(pS) or SYM.search(pS)
        if m and m.group(1) in syms:
            size = SYM_SIZE.search(m.group(0))
            a = _address(syms[m.group(1)], int(m.group(2), 16),
                         int(size.group(1), 16) if size else None,
                         int(raw, 16) if raw else None)
            if a is not None:
                want[n] = a
    locs = _addr2line(elf, sorted(set(want.values())))
    return {n: locs.get(a, []) for n, a in want.items()}


def _describe(frames):
    if not frames:
        return ""
    text = frames[0][1]
    for fn, loc in frames[1:]:
        text += f" (inlined into {fn} at {loc})"
    return text


def _key(line):
    """A line's first func+0xoff/0xsize, with @ADDR where a Call Trace
    frame printed its address before it (resolve()'s names); None when it
    names no code."""
    m = SYM.search(line)
    if not m:
        return None
    a = FRAME_ADDR.search(line[:m.start()])
    return m.group(0) + (f"@{a.group(1)}" if a else "")


def symbolize(text, elf):
    """text with each line that names code as func+0xoff/0xsize given the
    source line of its first such name, after two spaces. Unchanged when
    elf is missing (a log from elsewhere)."""
    if not elf or not Path(elf).exists():
        return text
    lines = text.splitlines(keepends=True)
    table = resolve(elf, list(dict.fromkeys(k for k in map(_key, lines) if k)))
    out = []
    for line in lines:
        key = _key(line)
        where = _describe(table.get(key, [])) if key else ""
        if where:
            end = "\n" if line.endswith("\n") else ""
            line = line.rstrip("\n") + "  " + where + end
        out.append(line)
    return "".join(out)


def elf_for_log(log_path):
    """The ELF a log under build/<name>/logs/ came from, or None."""
    p = Path(log_path).resolve()
    for parent in p.parents:
        if parent.name == "logs" and (parent.parent / "quiescent.elf").exists():
            return parent.parent / "quiescent.elf"
    return None


def symbolize_file(log_path, elf=None):
    """Write <log>.sym beside a log, symbolized; returns its path (None if
    there was no ELF to read)."""
    elf = elf or elf_for_log(log_path)
    if not elf:
        return None
    p = Path(log_path)
    out = p.with_name(p.name + ".sym")
    out.write_text(symbolize(p.read_text(errors="replace"), elf))
    return out
