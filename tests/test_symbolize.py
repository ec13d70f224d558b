"""qs.symbolize, the one symbolizer, on the defconfig ELF (no boot): a
static function whose name several files define (reader_fn, busy_fn,
worker_fn) is resolved to the copy the report printed, not to the first
of that name. A Call Trace line carries the address itself; a bare
func+off/size (a KASAN headline, %pS in a warning) is told apart by its
size, and one no size tells apart gets no line rather than a wrong one.
"""
import subprocess

from qs.symbolize import symbolize


def copies(elf):
    """{name: [(address, size), ...]} of the text symbols defined twice or
    more, each size as the kernel prints it (up to the next symbol)."""
    out = subprocess.run(["nm", "-n", "--defined-only", str(elf)], capture_output=True,
                         text=True, check=True).stdout
    syms = [(int(p[0], 16), p[2]) for p in (ln.split() for ln in out.splitlines())
            if len(p) == 3 and p[1] in "tT" and int(p[0], 16) >= 0xffffffff80000000
            and not p[2].startswith((".", "$"))]
    seen = {}
    for i, (a, name) in enumerate(syms[:-1]):
        seen.setdefault(name, []).append((a, syms[i + 1][0] - a))
    return {n: v for n, v in seen.items() if len(v) > 1}


def file_of(elf, addr):
    out = subprocess.run(["addr2line", "-e", str(elf), hex(addr)], capture_output=True,
                         text=True, check=True).stdout.strip()
    return out.split(":")[0].removeprefix("./")


def test_a_name_two_files_define_is_the_copy_printed(defconfig_elf):
    dup = copies(defconfig_elf)
    assert "reader_fn" in dup, "no static name defined twice: the test has nothing to tell apart"
    for name, where in dup.items():
        sizes = [s for _, s in where]
        for addr, size in where:
            off = min(4, max(size - 1, 0))
            want = file_of(defconfig_elf, addr + off)
            trace = symbolize(f"cpu0:   [<{addr + off:016x}>] {name}+{off:#x}/{size:#x}\n",
                              defconfig_elf)
            assert f"  {want}:" in trace, (name, hex(addr), want, trace)
            bare = symbolize(f"BUG: KASAN: use-after-free in {name}+{off:#x}/{size:#x}\n",
                             defconfig_elf)
            if sizes.count(size) == 1:
                assert f"  {want}:" in bare, (name, hex(addr), want, bare)
            else:
                assert bare.endswith(f"/{size:#x}\n"), ("an ambiguous name given a line", bare)
