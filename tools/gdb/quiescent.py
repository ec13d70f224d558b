"""gdb helpers for Quiescent. `make gdb` loads this file; by hand:

    (gdb) source tools/gdb/quiescent.py

Commands (qs-help lists them):
    qs-dmesg [N]          the last N lines (default 40) of the printk ring log_buf
    qs-cpus               per-CPU cpu_local fields and tick counts
    qs-percpu VAR [CPU]   a per-CPU variable on one CPU, or on every CPU
    qs-ticks              per-CPU LAPIC timer tick counts and jiffies
    qs-rcu                the RCU state of the variant built in (when there is one)
    qs-ipc                the SysV semaphore ID table and the frees waiting for a grace period
    qs-rtcache [B|all]    the route cache's buckets and entries (tools/gdb/rtcache.py)
Convenience function:
    $percpu("VAR", CPU)   the value of CPU's copy of VAR, e.g.  p $percpu("tick_count", 1)

Per-CPU data: .percpu is a template; CPU n's copy of v lives at
(char *)&v + __per_cpu_offset[n], and struct cpu_local sits at offset 0 of
every copy (cpu_local_template). Before the per-CPU areas are set up
(early boot) the offsets are zero and every CPU shows the template.
"""
import os
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# gdb runs this file as __main__; the per-variant RCU modules import it as
# "quiescent": let them find this copy instead of running it a second time.
sys.modules.setdefault("quiescent", sys.modules[__name__])
# The scheduler's helpers (qs-tasks, qs-runqueues, qs-sched-stats). "source",
# not "import": Python's standard library has a module named sched.
gdb.execute("source " + os.path.join(os.path.dirname(os.path.abspath(__file__)), "sched.py"))
# SysV IPC's qs-ipc (kernel/ipc).
gdb.execute("source " + os.path.join(os.path.dirname(os.path.abspath(__file__)), "ipc.py"))
# The route cache's qs-rtcache (kernel/net/route_cache.c).
gdb.execute("source " + os.path.join(os.path.dirname(os.path.abspath(__file__)), "rtcache.py"))


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


class QsHelp(gdb.Command):
    """List Quiescent's gdb commands."""

    def __init__(self):
        super().__init__("qs-help", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        print(__doc__)


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


class QsCpus(gdb.Command):
    """qs-cpus: per-CPU cpu_local (cpu, APIC ID, current task, preempt_count, idle) and ticks."""

    def __init__(self):
        super().__init__("qs-cpus", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        print(f"{'cpu':>3} {'apic':>4} {'current':>18} {'preempt':>7} {'idle':>4} {'ticks':>8}  area")
        for c in range(nr_cpus()):
            cl = per_cpu("cpu_local_template", c)
            ticks = int(per_cpu("tick_count", c)) if _has_symbol("tick_count") else -1
            print(f"{int(cl['cpu']):>3} {int(cl['apic_id']):>4} {int(cl['current']):#18x} "
                  f"{int(cl['preempt_count']):>7} {int(cl['in_idle']):>4} {ticks:>8}  "
                  f"{int(cl['self']):#x}")


class QsRcu(gdb.Command):
    """qs-rcu: the RCU state of the variant that is built (grace period, CPUs owing
    a quiescent state, per-CPU counters, callback lists). Each variant provides
    tools/gdb/rcu_<variant>.py with a function show(). `qs-rcu-gp` stops at the
    start and end of grace periods (breakpoints on rcu_gp_begin/rcu_gp_end)."""

    def __init__(self):
        super().__init__("qs-rcu", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        try:                       # a string in the kernel, no function call needed
            name = gdb.parse_and_eval("(const char *)&rcu_variant_id").string()
        except gdb.error:
            name = None
        if not name or name == "(none)":
            print("qs-rcu: no RCU variant is built into this kernel yet")
            return
        modname = "rcu_" + name.replace("-", "_")
        try:
            mod = __import__(modname)
        except ImportError:
            print(f"qs-rcu: variant {name}: no tools/gdb/{modname}.py helper yet")
            return
        mod.show()


class QsRcuGp(gdb.Command):
    """qs-rcu-gp: break where a grace period begins (rcu_gp_begin) and ends
    (rcu_gp_end); 'continue' then stops at each, and qs-rcu shows the state."""

    def __init__(self):
        super().__init__("qs-rcu-gp", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        for fn in ("rcu_gp_begin", "rcu_gp_end"):
            gdb.Breakpoint(fn)


class PerCpuFunction(gdb.Function):
    """$percpu("VAR", CPU): CPU's copy of the per-CPU variable VAR."""

    def __init__(self):
        super().__init__("percpu")

    def invoke(self, var, cpu):
        return per_cpu(var.string(), int(cpu))


for _cls in (QsHelp, QsDmesg, QsPercpu, QsTicks, QsCpus, QsRcu, QsRcuGp):
    _cls()
PerCpuFunction()
print("quiescent: gdb helpers loaded (qs-help); hbreak kmain stops at the C entry")
