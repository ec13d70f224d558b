"""gdb helpers for Quiescent. `make gdb` loads this file; by hand:

    (gdb) source tools/gdb/quiescent.py

Commands (qs-help lists them all, with those of every other file here):
    qs-dmesg [N]          the last N lines (default 40) of the printk ring log_buf
    qs-cpus               per-CPU cpu_local fields and tick counts
    qs-percpu VAR [CPU]   a per-CPU variable on one CPU, or on every CPU
    qs-ticks              per-CPU LAPIC timer tick counts and jiffies
    qs-rcu                the RCU state of the variant built in
    qs-rcu-gp             stop where grace periods begin and end
Convenience function:
    $percpu("VAR", CPU)   the value of CPU's copy of VAR, e.g.  p $percpu("tick_count", 1)

Every other file in tools/gdb/ that defines qs-* commands is loaded too
(sched.py: qs-tasks, qs-runqueues, ...), and qs-help finds their commands
by reading the files: a new file needs no list updated here. Its group in
qs-help is its QS_GROUP string (else its file name). The per-variant RCU
views, rcu_<name>.py, define no commands: qs-rcu imports the one built.

Per-CPU data: .percpu is a template; CPU n's copy of v lives at
(char *)&v + __per_cpu_offset[n], and struct cpu_local sits at offset 0 of
every copy (cpu_local_template). Before the per-CPU areas are set up
(early boot) the offsets are zero and every CPU shows the template.
"""
import importlib.util
import os
import re
import sys

import gdb

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# gdb runs this file as __main__; the per-variant RCU modules import it as
# "quiescent": let them find this copy instead of running it a second time.
sys.modules.setdefault("quiescent", sys.modules[__name__])

QS_GROUP = "Kernel: the log, CPUs, per-CPU data"
RCU_GROUP = "RCU (the built variant's view: tools/gdb/rcu_<name>.py)"
# A command's name where a file registers it: the string that starts the
# arguments of super().__init__ (or gdb.Command.__init__(self, ...)).
RE_COMMAND = re.compile(r"""__init__\(\s*(?:self,\s*)?["'](qs-[\w-]+)["']""")
RE_GROUP = re.compile(r"""^QS_GROUP\s*=\s*["'](.+)["']""", re.M)


def command_files():
    """{file name: (group, [qs-* commands])} for every file here that
    registers qs-* commands, this one first."""
    out = {}
    for name in ["quiescent.py"] + sorted(f for f in os.listdir(HERE) if f.endswith(".py")):
        if name in out:
            continue
        with open(os.path.join(HERE, name)) as f:
            text = f.read()
        cmds = RE_COMMAND.findall(text)
        if cmds:
            g = RE_GROUP.search(text)
            out[name] = (g.group(1) if g else name, cmds)
    return out


def _int(expr):
    return int(gdb.parse_and_eval(expr))


def _has_symbol(name):
    try:
        gdb.parse_and_eval(f"&{name}")
        return True
    except gdb.error:
        return False


def nr_cpus():
    try:
        return max(1, _int("nr_cpu_ids"))
    except gdb.error:
        return 1


def per_cpu(var, cpu):
    """CPU's copy of the per-CPU variable var, as a gdb.Value."""
    sym = gdb.parse_and_eval(var)
    base = int(gdb.parse_and_eval(f"(unsigned long)&{var}"))
    off = _int(f"__per_cpu_offset[{int(cpu)}]")
    return gdb.Value(base + off).cast(sym.type.pointer()).dereference()


def log_text():
    size = _int("sizeof(log_buf)")
    count = _int("log_len")
    start = _int("(unsigned long)&log_buf[0]")
    inf = gdb.selected_inferior()
    if count <= size:
        data = bytes(inf.read_memory(start, count))
    else:                                   # the ring wrapped: oldest byte at count % size
        head = count % size
        data = bytes(inf.read_memory(start + head, size - head)) + bytes(inf.read_memory(start, head))
    return data.decode(errors="replace")


def _summary(cmd, width=90):
    """The first sentence of a command's help, on one line."""
    try:
        text = gdb.execute(f"help {cmd}", to_string=True).strip()
    except gdb.error:
        return None
    text = " ".join(text.split("\n\n")[0].split())
    end = text.find(". ")
    text = text if end < 0 else text[:end + 1]
    return text if len(text) <= width else text[:text.rfind(" ", 0, width - 4)] + " ..."


class QsHelp(gdb.Command):
    """qs-help: every qs-* command, by group (`help qs-x` tells more)."""

    def __init__(self):
        super().__init__("qs-help", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        groups = {}
        for fname, (group, cmds) in command_files().items():
            for c in cmds:
                g = RCU_GROUP if c.startswith("qs-rcu") else group
                groups.setdefault(g, []).append((c, fname))
        print("Quiescent's gdb commands (tools/gdb/), by group; `help qs-x` tells more.")
        for group, cmds in groups.items():
            print(f"\n{group}")
            for c, fname in sorted(set(cmds)):
                text = _summary(c)
                if text is None:
                    text = f"(not loaded: source tools/gdb/{fname})"
                elif text.startswith(c):             # "qs-x ARGS: what" reads as "ARGS: what"
                    text = text[len(c):].lstrip(" :") or text
                print(f"  {c:16} {text}")
        print('\nConvenience function:\n  $percpu("VAR", CPU) CPU\'s copy of a per-CPU variable, '
              'e.g. p $percpu("tick_count", 1)')


class QsDmesg(gdb.Command):
    """qs-dmesg [N]: the last N lines (default 40) of the kernel log (log_buf)."""

    def __init__(self):
        super().__init__("qs-dmesg", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        n = int(arg) if arg.strip() else 40
        lines = log_text().rstrip("\n").split("\n")
        for line in lines[-n:]:
            print(line)


class QsPercpu(gdb.Command):
    """qs-percpu VAR [CPU]: a per-CPU variable on CPU, or on every CPU."""

    def __init__(self):
        super().__init__("qs-percpu", gdb.COMMAND_DATA, gdb.COMPLETE_SYMBOL)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if not argv:
            raise gdb.GdbError("usage: qs-percpu VAR [CPU]")
        cpus = [int(argv[1])] if len(argv) > 1 else range(nr_cpus())
        for cpu in cpus:
            print(f"cpu{cpu}: {argv[0]} = {per_cpu(argv[0], cpu)}")


class QsTicks(gdb.Command):
    """qs-ticks: each CPU's LAPIC timer tick count, and jiffies."""

    def __init__(self):
        super().__init__("qs-ticks", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        ticks = " ".join(f"cpu{c}={int(per_cpu('tick_count', c))}" for c in range(nr_cpus()))
        jiffies = _int("jiffies") if _has_symbol("jiffies") else "?"
        print(f"ticks: {ticks}  jiffies={jiffies}")


def read_side(count, nesting):
    """What a CPU's preempt_count (include/preempt.h's fields) and its
    task's rcu-preempt depth say of its read-side sections. On a variant
    that is not preemptible rcu_read_lock() is preempt_disable() and
    rcu_read_lock_bh() local_bh_disable(): the counts are the nesting."""
    parts = []
    if count & 0xff:
        parts.append(f"preempt-off {count & 0xff}")
    softirq = (count >> 8) & 0xff
    if softirq // 2:
        parts.append(f"bh-off {softirq // 2}")
    if softirq & 1:
        parts.append("in a softirq")
    if (count >> 16) & 0xff:
        parts.append(f"in hardirq {(count >> 16) & 0xff}")
    if count & (1 << 24):
        parts.append("in an NMI")
    if nesting:
        parts.append(f"rcu_read_lock nesting {nesting} (rcu-preempt's, per task)")
    return ", ".join(parts) or "none"


class QsCpus(gdb.Command):
    """qs-cpus: per-CPU cpu_local (cpu, APIC ID, current task, preempt_count,
    idle), ticks, and what the counts say of read-side sections: on a
    variant that is not preemptible the preemption and bh counts are the
    rcu_read_lock() and rcu_read_lock_bh() nesting; on rcu-preempt the
    current task's own count is."""

    def __init__(self):
        super().__init__("qs-cpus", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        print(f"{'cpu':>3} {'apic':>4} {'current':>18} {'preempt':>7} {'idle':>4} {'ticks':>8}  "
              f"{'area':<18}  read side (preempt_count decoded)")
        for c in range(nr_cpus()):
            cl = per_cpu("cpu_local_template", c)
            ticks = int(per_cpu("tick_count", c)) if _has_symbol("tick_count") else -1
            count, nesting = int(cl['preempt_count']), 0
            try:
                if int(cl['current']):
                    nesting = int(cl['current'].dereference()['rcu_read_lock_nesting'])
            except gdb.error:
                pass
            print(f"{int(cl['cpu']):>3} {int(cl['apic_id']):>4} {int(cl['current']):#18x} "
                  f"{count:>#7x} {int(cl['in_idle']):>4} {ticks:>8}  "
                  f"{int(cl['self']):<#18x}  {read_side(count, nesting)}")


class QsRcu(gdb.Command):
    """qs-rcu: the built variant's RCU state, read from the kernel. The grace
    period, the CPUs that still owe it a quiescent state, per-CPU counters,
    the callback lists with their functions. Each variant provides
    tools/gdb/rcu_<name>.py with a function show(). `qs-rcu-gp` stops at
    the start and end of grace periods."""

    def __init__(self):
        super().__init__("qs-rcu", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        try:                       # a string in the kernel, no function call needed
            name = gdb.parse_and_eval("(const char *)&rcu_variant_id").string()
        except gdb.MemoryError:
            print("qs-rcu: the kernel's memory is not mapped yet (stopped before paging is on): "
                  "hbreak kmain and continue first")
            return
        except gdb.error:
            name = None
        if not name:
            print("qs-rcu: this ELF has no rcu_variant_id: is it a Quiescent kernel?")
            return
        modname = "rcu_" + name.replace("-", "_")
        try:
            mod = __import__(modname)
        except ImportError:
            print(f"qs-rcu: variant {name}: there is no tools/gdb/{modname}.py to show it")
            return
        mod.show()


class QsRcuGp(gdb.Command):
    """qs-rcu-gp: stop where grace periods begin and end. Breakpoints on
    rcu_gp_begin and rcu_gp_end: 'continue' then stops at each, and qs-rcu
    shows the state. An idle kernel starts none: type `rcu sync` (or `rcu call N`) at the
    console (make console). Hardware breakpoints, so that it works from
    the first instruction too, before the kernel's page tables are up."""

    def __init__(self):
        super().__init__("qs-rcu-gp", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        for fn in ("rcu_gp_begin", "rcu_gp_end"):
            gdb.Breakpoint(fn, type=gdb.BP_HARDWARE_BREAKPOINT)
        print("qs-rcu-gp: continue, then start a grace period: `rcu sync` at the console")


class PerCpuFunction(gdb.Function):
    """$percpu("VAR", CPU): CPU's copy of the per-CPU variable VAR."""

    def __init__(self):
        super().__init__("percpu")

    def invoke(self, var, cpu):
        return per_cpu(var.string(), int(cpu))


for _cls in (QsHelp, QsDmesg, QsPercpu, QsTicks, QsCpus, QsRcu, QsRcuGp):
    _cls()
PerCpuFunction()
# The other files' commands, each file as a module of its own (qs_gdb_<name>):
# not under its own name, which may be a standard module's (sched.py), and
# not by gdb's "source", which would run it in this file's namespace.
for _name in command_files():
    if _name != "quiescent.py":
        _spec = importlib.util.spec_from_file_location("qs_gdb_" + _name[:-3],
                                                       os.path.join(HERE, _name))
        _mod = importlib.util.module_from_spec(_spec)
        sys.modules[_spec.name] = _mod
        _spec.loader.exec_module(_mod)
print("quiescent: gdb helpers loaded (qs-help); hbreak kmain stops at the C entry")
