"""tools/qs/kcov.py, the coverage report's library (docs/kcov.md), without
a boot: the three forms PCs come in are read back to the right addresses,
and a small host-built object with the same instrumentation
(-fsanitize-coverage=trace-pc, one file in a kernel/fs/ of its own) is
read as an image: its blocks are found, a PC names the block and the
function it is in, kcov.all's rounded PCs land on the block they stand
for and not on its neighbour, and the table counts and lists what was
and was not reached. Each assertion fails if the decoding is off by a
byte, a bit or a word. About a second (one host compile).
"""
import subprocess

import pytest

from qs import kcov


def test_pcs_from_text_reads_each_form():
    text = "\n".join([
        "[    0.1] cpu0: kcov: pc ffffffff80100010\r",
        "ffffffff80100020",
        "0xffffffff80100030",
        "[    2.0] cpu1: kcov: all: base ffffffff80100001 granule 4",
        "[    2.0] cpu1: kcov: map 0 5",                   # bits 0 and 2
        "[    2.0] cpu1: kcov: map 2 8000000000000000",    # bit 63 of word 2
        "[    2.1] cpu1: kcov: all: end, 2 words, 3 PCs",
    ])
    pcs = kcov.pcs_from_text(text)
    assert pcs.exact == {0xffffffff80100010, 0xffffffff80100020, 0xffffffff80100030}
    base = 0xffffffff80100001
    assert {base, base + 8, base + (2 * 64 + 63) * 4} <= pcs.rounded
    assert pcs.dumps == 1


def test_map_before_any_base_is_not_read():
    assert not kcov.pcs_from_text("kcov: map 0 1\n").rounded


DEMO = r"""
volatile int sink;
int fs_reached(int x) { if (x > 3) sink = 1; else sink = 2; return sink; }
int fs_never(int x) { if (x) sink = 3; return x + 1; }
int main(void) { return fs_reached(sink); }
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    d = tmp_path_factory.mktemp("kcov")
    src = d / "kernel" / "fs" / "demo.c"
    src.parent.mkdir(parents=True)
    src.write_text(DEMO)
    (d / "hook.c").write_text("void __sanitizer_cov_trace_pc(void);\n"
                              "void __sanitizer_cov_trace_pc(void) { }\n")
    elf = d / "demo.elf"
    # The hook itself uninstrumented, as kernel/kcov/kcov.c is: built apart.
    subprocess.run(["gcc", "-O1", "-g", "-fno-pie", "-no-pie", f"-fdebug-prefix-map={d}=.",
                    "-fsanitize-coverage=trace-pc", "-fno-inline", "-c", "kernel/fs/demo.c",
                    "-o", "demo.o"], cwd=d, check=True)
    subprocess.run(["gcc", "-O1", "-fno-pie", "-c", "hook.c", "-o", "hook.o"], cwd=d, check=True)
    subprocess.run(["gcc", "-no-pie", "demo.o", "hook.o", "-o", str(elf)], cwd=d, check=True)
    return kcov.Image(elf)


def _sites_of(image, name):
    return sorted(s for s, b in image.block.items() if b[1] == name)


def test_image_finds_blocks_and_functions(demo):
    reached, never = _sites_of(demo, "fs_reached"), _sites_of(demo, "fs_never")
    assert len(reached) >= 2 and len(never) >= 1
    assert all(demo.block[s][0] == "kernel/fs/demo.c" for s in reached + never)


def test_exact_and_rounded_pcs_hit_their_block(demo):
    reached = _sites_of(demo, "fs_reached")
    pcs = kcov.Pcs(exact={reached[0]})
    assert demo.hit(pcs) == {reached[0]}
    # kcov.all rounds down by up to 3 bytes: still that block, not the next.
    for back in range(kcov.GRANULE_SLACK + 1):
        assert demo.hit(kcov.Pcs(rounded={reached[1] - back})) == {reached[1]}
    assert demo.hit(kcov.Pcs(rounded={reached[1] + 1})) != {reached[1]}
    assert demo.hit(kcov.Pcs(exact={reached[0] + 1})) == set()   # not a block's address


def test_table_counts_reached_and_lists_the_rest(demo):
    reached = _sites_of(demo, "fs_reached")
    cov = kcov.Coverage()
    cov.add(demo, kcov.Pcs(exact={reached[0]}))
    (row,) = kcov.rows(cov)
    path, fr, ft, br, bt, never = row
    assert path == "kernel/fs/demo.c" and (fr, ft) == (1, 3)       # main, fs_reached, fs_never
    assert br == 1 and bt == len(demo.block)
    assert never == ["fs_never", "main"]
    text = kcov.table(cov, unreached=True)
    assert "never reached: fs_never, main" in text
    assert "kernel/fs/ (all)" in text and "33.3%" in text
    assert kcov.summary(cov)[0].startswith("kernel/fs: functions 1/3 (33.3%)")
    assert kcov.rows(cov, exclude_tests=True) == kcov.rows(cov)
    assert not kcov.in_areas("kernel/fs/dcache_test.c", exclude_tests=True)


def test_suite_puts_kcov_all_among_the_kernel_options():
    """kcov.all=1 goes before " -- ", also where the cmdline begins with
    it (the user-mode scenarios), not into init's script."""
    import kcov_report
    from qs import scenario
    assert scenario.add_kernel_args("-- true; poweroff", "kcov.all=1") == "kcov.all=1 -- true; poweroff"
    assert scenario.add_kernel_args("a=1 -- x", "kcov.all=1") == "a=1 kcov.all=1 -- x"
    assert scenario.add_kernel_args("ktest=x", "kcov.all=1") == "ktest=x kcov.all=1"
    cases = {sc.name: sc for sc in kcov_report.suite_cases(["user-shell-status*", "kcov-*"], [])}
    assert cases and all("CONFIG_KCOV=y" in sc.options for sc in cases.values())
    for sc in cases.values():
        head, _, script = sc.cmdline.partition("-- ")
        assert "kcov.all=1" in head.split() and "kcov.all" not in script, sc.cmdline
