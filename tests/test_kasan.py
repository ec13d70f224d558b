"""KASAN's reports, read line by line (kernel/test/test_kasan.c, docs/kasan.md).

One boot of the KASAN build of defconfig runs every manual kasan_* ktest:
each makes one bug on purpose (a use after free, a use after an RCU free
seen from outside a reader and from a reader that began after the free
was queued, out of bounds on each side of a kmalloc object, in a global
and a stack array, a double and an invalid free) and prints the line of
its access first ("kasan: access at file:line"). Each report is cut out
of the console, symbolized (qs.symbolize, the one symbolizer) and checked
line by line: the kind, the access (read or write, size), the Call Trace
naming the test's line, the allocation, free and call_rcu() stacks, the
object's cache and offset, the RCU verdict and the shadow bytes. A second
boot, of busted, checks the third verdict (a reader whose section began
before the free was queued: a grace period cut short).
"""
import re

import pytest

from qs import REPO
from qs.boot import boot
from qs.symbolize import symbolize

OPTS = ("CONFIG_KASAN=y",)
TIMEOUT = 240

# ktest: (kind, access line regex, object line regex or None, stacks wanted, RCU verdict)
CASES = {
    "kasan_use_after_free": ("use-after-free", r"Read of size 8 at addr",
                             r"located 24 bytes inside the 64-byte region", ("Allocated", "Freed"), None),
    "kasan_use_after_free_page": ("use-after-free", r"Write of size 1 at addr",
                                  r"located 4101 bytes inside the 12288-byte region",
                                  ("Allocated", "Freed"), None),
    "kasan_oob_right": ("slab-out-of-bounds", r"Read of size 1 at addr",
                        r"located 0 bytes to the right of the 61-byte region", ("Allocated",), None),
    "kasan_oob_left": ("slab-out-of-bounds", r"Read of size 1 at addr",
                       r"located 1 bytes to the left of the 64-byte region", ("Allocated",), None),
    "kasan_global_oob": ("global-out-of-bounds", r"Read of size 1 at addr",
                         r"belongs to the variable kasan_global of size 13 .*, 13 bytes from its start",
                         (), None),
    "kasan_stack_oob": ("stack-out-of-bounds", r"Read of size 1 at addr", None, (), None),
    "kasan_double_free": ("double-free", r"kfree\(0x[0-9a-f]+\) by task init/\d+",
                          r"located 0 bytes inside the 32-byte region", ("Allocated", "Freed"), None),
    "kasan_invalid_free": ("invalid-free", r"kfree\(0x[0-9a-f]+\) by task init/\d+",
                           r"located 8 bytes inside the 32-byte region", ("Allocated",), None),
    "kasan_rcu_outside": ("use-after-rcu-free", r"Read of size 8 at addr",
                          r"located 0 bytes inside the \d+-byte region", ("Allocated", "Freed", "call_rcu"),
                          r"outside any read-side critical section: .*\(a user bug\)"),
    "kasan_rcu_updater_order": ("use-after-rcu-free", r"Read of size 8 at addr",
                                r"located 0 bytes inside the \d+-byte region",
                                ("Allocated", "Freed", "call_rcu"),
                                r"began after call_rcu\(\) queued the free.*\(an updater-order bug\)"),
    "kasan_srcu_outside": ("use-after-rcu-free", r"Read of size 8 at addr",
                           r"located 0 bytes inside the \d+-byte region", ("Allocated", "Freed", "call_srcu"),
                           r"call_srcu\(\) waits only for srcu_read_lock\(\) sections of its own"),
    "kasan_rcu_tasks_outside": ("use-after-rcu-free", r"Read of size 8 at addr",
                                r"located 0 bytes inside the \d+-byte region",
                                ("Allocated", "Freed", "call_rcu_tasks"),
                                r"call_rcu_tasks\(\) waits only for every task to pass a voluntary"),
}
EARLY = ("kasan_rcu_early", ("use-after-rcu-free", r"Read of size 8 at addr",
                             r"located 0 bytes inside the \d+-byte region", ("Allocated", "Freed", "call_rcu"),
                             r"began before call_rcu\(\) queued the free: a grace period ended too early "
                             r"\(an RCU bug\)"))
SEP = "=" * 66


def reports(text):
    """{ktest: (access line number, [report lines])}, from a symbolized log."""
    out, test, line_no, cur = {}, None, None, None
    for raw in text.splitlines():
        m = re.search(r"ktest: running (\w+)", raw)
        if m:
            test, line_no = m.group(1), None
        m = re.search(r"# kasan: access at kernel/test/test_kasan\.c:(\d+)", raw)
        if m:
            line_no = int(m.group(1))
        body = re.sub(r"^\[\s*\d+\.\d+\] cpu\d+: ", "", raw)
        if body == SEP:
            if cur is None:
                cur = []
            else:
                out[test] = (line_no, cur)
                cur = None
            continue
        if cur is not None:
            cur.append(body)
    return out


def check_report(name, want, line_no, lines):
    kind, access, obj, stacks, verdict = want
    here = f"kernel/test/test_kasan.c:{line_no}"
    head = lines[0]
    assert re.match(rf"BUG: KASAN: {re.escape(kind)} in \S+\+0x[0-9a-f]+/0x[0-9a-f]+  {here}\b", head), \
        f"{name}: first line {head!r}, want the kind {kind} at {here}"
    assert re.search(access, lines[1]) and re.search(r"on CPU \d+$", lines[1]), \
        f"{name}: second line {lines[1]!r}, want /{access}/ with the task and CPU"
    assert lines[2] == "Call Trace:", f"{name}: no Call Trace after the access ({lines[2]!r})"
    assert here in lines[3], f"{name}: the trace's first frame {lines[3]!r} is not {here}"
    text = "\n".join(lines)
    for s in stacks:
        label = {"Allocated": r"^Allocated by task \d+ on CPU \d+:$",
                 "Freed": r"^Freed by task \d+ on CPU \d+( after grace period \d+, by an RCU callback)?:$",
                 "call_rcu": rf"^call_rcu\(\) queued it at \[<[0-9a-f]+>\] ktest_fn_{name}\+\S+, "
                             r"\d+ grace periods earlier:  kernel/test/test_kasan\.c:\d+$",
                 "call_srcu": rf"^call_srcu\(\) queued it at \[<[0-9a-f]+>\] ktest_fn_{name}\+\S+:  "
                              r"kernel/test/test_kasan\.c:\d+$",
                 "call_rcu_tasks": rf"^call_rcu_tasks\(\) queued it at \[<[0-9a-f]+>\] ktest_fn_{name}\+\S+:"
                                   r"  kernel/test/test_kasan\.c:\d+$"}[s]
        m = re.search(label, text, re.M)
        assert m, f"{name}: no /{label}/ in\n{text}"
        nxt = text[m.end():].lstrip("\n").split("\n")[0]
        assert re.match(r"\s+\[<[0-9a-f]{16}>\] \S+\+0x\S+  \S+\.(c|h|asm):(\d+|\?)", nxt), \
            f"{name}: the {s} stack does not start with a symbolized frame: {nxt!r}"
    if obj:
        assert re.search(obj, text), f"{name}: no /{obj}/ in\n{text}"
    if verdict:
        assert re.search(r"^RCU: .*" + verdict, text, re.M), f"{name}: no RCU verdict /{verdict}/"
    else:
        assert "\nRCU: " not in text, f"{name}: an RCU verdict where none belongs"
    assert "Memory state around the buggy address:" in text
    shadow = [x for x in lines if re.match(r"^[ >][0-9a-f]{16}:( [0-9a-f]{2}){16}$", x)]
    assert len(shadow) == 5 and shadow[2].startswith(">"), f"{name}: shadow rows {shadow}"
    caret = lines[lines.index(shadow[2]) + 1]
    assert caret.strip() == "^", f"{name}: no caret under the shadow row: {caret!r}"


def run(config, tests, cpus=2, extra=""):
    name = f"test-{config}+KASAN-y"
    r = boot(name=name, defconfig=config, options=OPTS, cpus=cpus, timeout=TIMEOUT,
             cmdline="ktest=" + ",".join(tests) + extra, cache=True)
    return r, symbolize(r.log.replace("\r", ""), REPO / "build" / name / "quiescent.elf")


@pytest.mark.qemu
@pytest.mark.full       # the KASAN build does not fit in make test's 15 minutes (docs/kasan.md)
def test_kasan_report_kinds(kvm):
    r, text = run("defconfig", list(CASES) + ["kasan_correct_uses_silent", "kasan_once_per_site"])
    assert r.status == "pass", f"status {r.status}:\n{r.tail(40)}"
    got = reports(text)
    for name, want in CASES.items():
        assert re.search(rf"^ok \d+ {name}$", text, re.M), f"{name} did not pass"
        assert name in got, f"{name}: no report"
        check_report(name, want, *got[name])
    assert re.search(r"^ok \d+ kasan_correct_uses_silent$", text, re.M)
    assert re.search(r"^ok \d+ kasan_once_per_site$", text, re.M), "a site reported twice"
    assert set(got) - {"kasan_once_per_site"} == set(CASES), \
        f"reports from {sorted(set(got) - set(CASES))}"


@pytest.mark.qemu
@pytest.mark.full       # a second KASAN build (busted)
def test_kasan_rcu_grace_period_cut_short(kvm):
    """On busted the free runs under the reader that was inside a section
    before call_rcu(): the report calls it an RCU bug. On a real variant
    the same test skips (the grace period waits for the reader)."""
    name, want = EARLY
    r, text = run("rcu_busted_defconfig", [name, "kasan_once_per_site"], extra=" kasan.multi_shot=1")
    assert re.search(r"^ok \d+ kasan_once_per_site$", text, re.M), \
        "kasan.multi_shot=1 did not print the second report from one site"
    assert re.search(rf"^ok \d+ {name}$", text, re.M), f"{name} did not pass:\n{r.tail(40)}"
    got = reports(text)
    assert name in got, "no report"
    check_report(name, want, *got[name])


@pytest.mark.qemu
@pytest.mark.full
def test_kasan_busted_stress_names_the_reader(kvm):
    """busted under the descriptor-table stress: the first report names
    the reader's own line (fget_rcu() in kernel/proc/file.c, or the test's
    window in file_stress.c), before the stress's poison check counts it."""
    name = "test-rcu_busted_defconfig+KASAN-y"
    r = boot(name=name, defconfig="rcu_busted_defconfig", options=OPTS, cpus=4, timeout=TIMEOUT,
             cmdline="ktest=files_rcu_stress_expect_failure files_stress.duration=2", cache=True)
    text = symbolize(r.log.replace("\r", ""), REPO / "build" / name / "quiescent.elf")
    m = re.search(r"BUG: KASAN: use-after-rcu-free in (\w+)\+\S+  (kernel/proc/file(_stress)?\.c):(\d+)", text)
    assert m and (m.group(1) == "fget_rcu" or m.group(1).startswith("fs_window")), \
        f"no report at the reader's line:\n{r.tail(40)}"
    assert re.search(r"^ok \d+ files_rcu_stress_expect_failure$", text, re.M)
    t0 = float(re.search(r"\[\s*(\d+\.\d+)\] cpu\d+: ktest: running", text).group(1))
    t1 = float(re.search(r"\[\s*(\d+\.\d+)\] cpu\d+: BUG: KASAN", text).group(1))
    t2 = float(re.search(r"\[\s*(\d+\.\d+)\] cpu\d+: files-stress: FAILURE", text).group(1))
    assert t1 < t2, "the stress's own check came first"
    print(f"KASAN named {m.group(2)}:{m.group(4)} {1000 * (t1 - t0):.0f} ms into the stress; "
          f"its poison check counted the failure at {1000 * (t2 - t0):.0f} ms")
