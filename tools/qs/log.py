"""The console log: what the runner understands of what the kernel printed.

printk lines look like "[    0.061950] cpu0: message"; KTAP and user
programs' output are raw lines. parse_console() pulls out the boot banner,
the CPUs-online and ticks lines, BENCH {json} lines, unknown command-line
options, the first panic with its Call Trace, and the KTAP report.

A printk from one CPU can land in the middle of a line another CPU (or a
user program) is writing, e.g. just after the shell's prompt "$ ".
user_view() moves such a printk out to a line of its own, so that a check
written as "^\\$ ps$" matches however the output interleaved.
"""
import json
import re
from dataclasses import dataclass, field

from qs import ktap
from qs.ktap import Report as KtapReport

RE_PRINTK = re.compile(r"^\[\s*(\d+\.\d+)\] cpu(\d+): (.*)$")
RE_BANNER = re.compile(r"config: HZ=(\d+) CPUs=(\d+) \(max (\d+)\) preemption=(\S+) rcu=(\S+)")
RE_ONLINE = re.compile(r"smp: all (\d+) CPUs online in ([\d.]+) ms")
RE_TICKS = re.compile(r"ticks:((?: cpu\d+=\d+)+)")
RE_PANIC = re.compile(r"Kernel panic on CPU (\d+): (.*)$")
RE_FRAME = re.compile(r"\[<([0-9a-fA-F]+)>\]\s+(\S+?)\+0x([0-9a-fA-F]+)/0x([0-9a-fA-F]+)")
RE_PANIC_END = re.compile(r"---\[ end Kernel panic")
RE_BENCH = re.compile(r"^BENCH (\{.*\})\s*$")
RE_UNKNOWN_OPT = re.compile(r"cmdline: unknown option '([^']*)'")
# A printk that begins after other text on its line.
RE_SPLICED = re.compile(r"^(?!\[\s*\d+\.\d+\] cpu\d+: )([^\n]+?)(\[\s*\d+\.\d+\] cpu\d+: [^\n]*\n)",
                        re.M)


def message(line):
    """The text of a console line without the printk prefix."""
    m = RE_PRINTK.match(line)
    return m.group(3) if m else line


def user_view(text):
    """The log without escapes and carriage returns, with every printk
    that interrupted a line moved before that line."""
    text = ktap.clean(text)
    for _ in range(64):                  # a line interrupted several times
        new = RE_SPLICED.sub(lambda m: m.group(2) + m.group(1), text)
        if new == text:
            break
        text = new
    return text


@dataclass
class Panic:
    cpu: int
    reason: str
    trace: list                  # function names, innermost first
    complete: bool               # the "---[ end Kernel panic" line was seen


@dataclass
class Console:
    """What the runner understood of a console log."""
    banner: dict = None
    online: int = None           # from "smp: all N CPUs online in X ms"
    online_ms: float = None
    ticks: dict = None           # cpu -> tick count, from the last "ticks:" line
    panic: Panic = None
    bench: list = field(default_factory=list)
    unknown_options: list = field(default_factory=list)
    ktap: KtapReport = None


def parse_console(text):
    text = ktap.clean(text)
    con = Console()
    lines = text.split("\n")
    for i, line in enumerate(lines):
        msg = message(line)
        m = RE_BANNER.search(msg)
        if m:
            con.banner = dict(hz=int(m.group(1)), cpus=int(m.group(2)), max_cpus=int(m.group(3)),
                              preemption=m.group(4), rcu=m.group(5))
        m = RE_ONLINE.search(msg)
        if m:
            con.online, con.online_ms = int(m.group(1)), float(m.group(2))
        m = RE_TICKS.search(msg)
        if m:
            con.ticks = {int(c): int(n) for c, n in re.findall(r"cpu(\d+)=(\d+)", m.group(1))}
        m = RE_UNKNOWN_OPT.search(msg)
        if m:
            con.unknown_options.append(m.group(1))
        m = RE_BENCH.match(line)
        if m:
            try:
                con.bench.append(json.loads(m.group(1)))
            except ValueError:
                con.bench.append({"unparsed": m.group(1)})
        m = RE_PANIC.search(msg)
        if m and con.panic is None:
            trace, complete = [], False
            for later in lines[i + 1:]:
                f = RE_FRAME.search(later)
                if f:
                    trace.append(f.group(2))
                if RE_PANIC_END.search(later):
                    complete = True
                    break
            con.panic = Panic(int(m.group(1)), m.group(2).strip(), trace, complete)
    con.ktap = ktap.parse(text)
    return con
