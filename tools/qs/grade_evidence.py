"""What a failed check shows of its build and its boot (qs.grade): the
console lines worth quoting, a failed build's first error, the report the
boot ended on, and the student's lines in that report."""
import re

from qs.judge import CONSOLE_PROBLEM

# Log lines worth showing as evidence when a boot check fails.
# A PROVE_RCU report's place and reason (docs/rcu/checking.md) and the
# locks held are the lines after its WARNING that say what to fix.
EVIDENCE = re.compile(r"rcu-torture: (FAILURE|ERROR)|^\s*not ok |^\s*# .*: expected |"
                      r"Kernel panic|kmalloc: poison|BUG:|rcu: stall|lab3: .*(FAIL|ERROR)|"
                      r"\S+\.c:\d+: rcu_dereference\w*\(\) (outside|and its condition)|"
                      r"lockdep:  #\d+: |lockdep: no locks held")
# The first error of a failed build: the compiler's, the assembler's, the linker's.
BUILD_ERROR = re.compile(r"^\S+:\d+(?::\d+)?: (?:fatal )?error: |undefined reference to|"
                         r"^\S+: No such file|\*\*\* No rule")


# A console line's time stamp and CPU ("[    1.26] cpu0: "), which a
# report's lines all carry.
STAMP = re.compile(r"^\[\s*\d+\.\d+\] cpu\d+: ")
# The lines of a report that are its backtrace, or a register dump: what
# its first lines shown as evidence leave out.
FRAME = re.compile(r"^\s*(\[<[0-9a-f]+>\]|Call Trace:|RIP:|RSP:|R[A-D]X:|R[SD]I:|RBP:|R\d\d:|"
                   r"CR[0-4]:|preempt_count:|\.\.\.$)")
# Where a KASAN report's later stacks begin: each names the student's line
# of its own (the free, the allocation, the call_rcu() that queued it).
SECTION = re.compile(r"^(Allocated by|Freed by|call_rcu\(\) queued it)")
KCSAN_ACCESS = re.compile(r"^(read|write)\b.* by task .* on cpu \d+:$")
REPORT_LINES = 80


def first_build_error(text):
    """The first error in a build's output and the lines that go with it
    (the source line and the caret under it), not the tail of the output."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if BUILD_ERROR.search(line):
            start = i - 1 if i and "In function" in lines[i - 1] else i
            return [ln for ln in lines[start:i + 3] if ln.strip()][:4]
    return [ln for ln in lines if ln.strip()][-6:]


def quoted(line, why):
    """Whether a reason already says what this console line says: a KTAP
    `not ok N name` under the reason `not ok name: ...`, or a line a
    reason quotes (qs.judge's unexpected lines)."""
    m = re.match(r"\s*not ok \d+ (\S+)", line)
    if m:
        return any(re.match(rf"not ok (\d+ )?{re.escape(m.group(1))}\b", w) for w in why)
    said = re.sub(r"^\s*# ", "", line).strip()[:100]     # a KTAP diagnostic, without its "# "
    return any(said in w for w in why)


def one_not_ok_each(why):
    """The KTAP verdict (`not ok 4 name: ...`) and the group check (`not ok
    name: ...`) report the same failed test: keep the first."""
    numbered = {m.group(1) for w in why if (m := re.match(r"not ok \d+ (\S+?):", w))}
    return [w for w in why
            if not ((m := re.match(r"not ok ([^\d\s]\S*?):", w)) and m.group(1) in numbered)]


def report_of(lines, stop):
    """The failing report: the lines from the one that ended the boot
    (stop) to its CPU's next report's first line, at most REPORT_LINES,
    without their time stamps; [] when stop is not among them. Only that
    CPU's lines: CPUs warning at once interleave their reports."""
    cpu = re.match(r"^\[\s*\d+\.\d+\] (cpu\d+): ", stop)
    want = STAMP.sub("", stop).strip()
    for i, ln in enumerate(lines):
        # The symbolizer may have added the line's file:line after it.
        if not STAMP.sub("", ln).strip().startswith(want):
            continue
        out = [STAMP.sub("", ln)]
        for ln2 in lines[i + 1:i + REPORT_LINES]:
            other = re.match(r"^\[\s*\d+\.\d+\] (cpu\d+): ", ln2)
            if cpu and other and other.group(1) != cpu.group(1):
                continue
            ln2 = STAMP.sub("", ln2)
            if CONSOLE_PROBLEM.search(ln2) and not FRAME.match(ln2) and \
                    not re.match(r"\s*(inside|outside) ", ln2):
                break
            out.append(ln2)
        return out
    return []


def student_lines(report, files):
    """[(what, "file:line", function)] for a report: in its first stack,
    the first place in one of the student's files and, when it is another,
    the outermost (where the student's code was entered: the walk a
    PROVE_RCU report names is in lab3_find(), the missing rcu_read_lock()
    in its caller); in each later section (KASAN's free, allocation and
    call_rcu() stacks) the first. A symbolized frame names its places
    innermost first (`lab3_lookup+0x17/0x40  kernel/labs/lab3_table.c:27
    (inlined into lab3_lookup at kernel/labs/lab3_table.c:51)`): each is
    a place of the stack."""
    if not files:
        return []
    where = re.compile(r"(?:^|[\s/(])(" + "|".join(re.escape(f) for f in files) + r"):(\d+)")
    found, section, accesses, interrupted = [], "the report", 0, None
    for ln in report:
        m = SECTION.match(ln.strip())
        if m:
            section = {"Allocated by": "allocated", "Freed by": "freed",
                       "call_rcu() queued it": "queued by call_rcu()"}[m.group(1)]
        elif KCSAN_ACCESS.match(ln.strip()):
            # KCSAN's two accesses, each with its stack, after a first
            # line that names both places.
            accesses += 1
            section = f"access {accesses}: {ln.strip().split(' to ')[0]}"
        f = re.search(r"\b([A-Za-z_]\w*)\+0x[0-9a-f]+/0x", ln)
        if f and re.match(r"(isr_common|irq_exit|__do_softirq)", f.group(1)):
            # What an interrupt interrupted is below its entry: not the
            # code that made the report's section (an RCU callback's free
            # in a softirq on top of lab3_insert()'s kmalloc()).
            interrupted = section
        if interrupted == section:
            continue
        inl = re.findall(r"inlined into (\w+) at", ln)
        locs = re.findall(r"(?:^|[\s(])(\S+:\d+)", ln[f.end():] if f else ln)
        for i, loc in enumerate(locs):
            mine = where.search(" " + loc)
            if not mine:
                continue
            # Place i of an inlined chain is in the function it was inlined
            # into; the innermost is in the frame's function unless inlined.
            fn = inl[i - 1] if 0 < i <= len(inl) else (f.group(1) if f and not inl else "")
            place = (section, f"{mine.group(1)}:{mine.group(2)}", fn)
            if place not in found:
                found.append(place)
    out = []
    for what in dict.fromkeys(w for w, _, _ in found):
        mine = [p for p in found if p[0] == what]
        out.append(mine[0])
        if what == "the report" and not accesses and len(mine) > 1 and \
                mine[-1][1] != mine[0][1]:
            out.append(("called from", mine[-1][1], mine[-1][2]))
    return out
