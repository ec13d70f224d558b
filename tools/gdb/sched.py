"""gdb helpers for Quiescent's scheduler (kernel/sched). Loads on its own:

    (gdb) source tools/gdb/sched.py

Commands:
    qs-tasks [CPU]     every task (all_tasks): pid, name, state, CPU, priority,
                       policy, switches; '*' marks the task running on its CPU
    qs-runqueues       per CPU: current task, nr_running, the queued tasks by priority
    qs-sched-stats     per-CPU scheduler statistics (runqueues.stats)
    qs-bt PID          the kernel stack of a task that is switched out: where
                       it sleeps (for the running ones, use `bt` in their thread)

Data: the per-CPU `runqueues` (struct rq, kernel/sched/sched.h) and the
list `all_tasks` (kernel/sched/kthread.c) of struct task (include/sched.h).
"""
import gdb

QS_GROUP = "Scheduler: tasks, run queues, statistics (kernel/sched)"
STATES = {0: "R", 1: "S", 2: "D", 4: "N", 8: "X"}
POLICIES = {0: "NORMAL", 1: "FIFO", 2: "RR"}


def _int(v):
    return int(v)


def _nr_cpus():
    try:
        return max(1, int(gdb.parse_and_eval("nr_cpu_ids")))
    except gdb.error:
        return 1


def _online(cpu):
    try:
        bits = gdb.parse_and_eval("cpu_online_mask.bits")
        return (int(bits[cpu // 64]) >> (cpu % 64)) & 1
    except gdb.error:
        return 1


def _per_cpu(var, cpu):
    sym = gdb.parse_and_eval(var)
    base = int(gdb.parse_and_eval(f"(unsigned long)&{var}"))
    off = int(gdb.parse_and_eval(f"__per_cpu_offset[{int(cpu)}]"))
    return gdb.Value(base + off).cast(sym.type.pointer()).dereference()


def _container_of(ptr, typename, member):
    t = gdb.lookup_type(typename)
    off = None
    for f in t.fields():
        if f.name == member:
            off = f.bitpos // 8
    addr = int(ptr) - off
    return gdb.Value(addr).cast(t.pointer()).dereference()


def _list(head, typename, member):
    """Yield the entries of a struct list_head list."""
    node = head["next"]
    first = int(head.address)
    seen = 0
    while int(node) != first and seen < 100000:
        yield _container_of(node, typename, member)
        node = node["next"]
        seen += 1


def _name(task):
    try:
        return task["name"].string()
    except gdb.error:
        return "?"


def _task_line(t, running):
    state = STATES.get(int(t["state"]), str(int(t["state"])))
    pol = POLICIES.get(int(t["policy"]), "?")
    return (f"{'*' if running else ' '}{int(t['pid']):5d} {_name(t):16s} {state} "
            f"cpu{int(t['cpu']):<2d} prio {int(t['prio']):3d} {pol:6s} "
            f"nvcsw {int(t['nvcsw'])} nivcsw {int(t['nivcsw'])} migr {int(t['migrations'])} "
            f"(struct task *){int(t.address):#x}")


def _currents():
    cur = set()
    for cpu in range(_nr_cpus()):
        if _online(cpu):
            cur.add(int(_per_cpu("runqueues", cpu)["curr"]))
    return cur


class QsTasks(gdb.Command):
    """qs-tasks [CPU]: all tasks, or those on CPU's run queue or last run there."""

    def __init__(self):
        super().__init__("qs-tasks", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        want = int(arg) if arg.strip() else None
        cur = _currents()
        head = gdb.parse_and_eval("all_tasks")
        for t in _list(head, "struct task", "tasks"):
            if want is not None and int(t["cpu"]) != want:
                continue
            print(_task_line(t, int(t.address) in cur))


class QsRunqueues(gdb.Command):
    """qs-runqueues: per-CPU run queues (current task, queued tasks by priority)."""

    def __init__(self):
        super().__init__("qs-runqueues", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        nprio = gdb.parse_and_eval("runqueues.queue").type.range()[1] + 1
        for cpu in range(_nr_cpus()):
            if not _online(cpu):
                continue
            rq = _per_cpu("runqueues", cpu)
            curr = rq["curr"]
            cname = _name(curr.dereference()) if int(curr) else "(none)"
            need = int(_per_cpu("cpu_local_template", cpu)["need_resched"])
            print(f"cpu{cpu}: curr {cname}  nr_running {int(rq['nr_running'])}  "
                  f"need_resched {need}  rt_task {'yes' if self._has_rt(rq) else 'no'}")
            for prio in range(nprio):
                q = rq["queue"][prio]
                names = [(_name(t), int(t["pid"])) for t in _list(q, "struct task", "run_list")]
                if names:
                    print(f"    prio {prio:3d}: " + ", ".join(f"{n}/{p}" for n, p in names))

    @staticmethod
    def _has_rt(rq):
        bm = rq["bitmap"]
        for i in range(2):
            w = int(bm[i])
            if w:
                return (i * 64 + (w & -w).bit_length() - 1) < 100
        return False


class QsSchedStats(gdb.Command):
    """qs-sched-stats: per-CPU scheduler statistics."""

    def __init__(self):
        super().__init__("qs-sched-stats", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        fields = ["nr_switches", "nvcsw", "nivcsw", "preempt_irq", "preempt_enable",
                  "wakeups", "remote_wakeups", "migrations_in", "migrations_out",
                  "balance_pulls", "idle_ticks"]
        print("cpu " + " ".join(f"{f:>14s}" for f in fields))
        for cpu in range(_nr_cpus()):
            if not _online(cpu):
                continue
            s = _per_cpu("runqueues", cpu)["stats"]
            print(f"{cpu:3d} " + " ".join(f"{int(s[f]):14d}" for f in fields))


def _sym(pc):
    try:
        blk = gdb.block_for_pc(pc)
        fn = blk.function if blk else None
        while blk and not fn:
            blk = blk.superblock
            fn = blk.function if blk else None
        if fn:
            sal = gdb.find_pc_line(pc)
            where = f" at {sal.symtab.filename}:{sal.line}" if sal and sal.symtab else ""
            return f"{fn.name}+{pc - int(fn.value().address):#x}{where}"
    except (gdb.error, RuntimeError):
        pass
    return "??"


class QsBt(gdb.Command):
    """qs-bt PID: the call chain of a switched-out task, from its saved stack.

switch_to_asm (kernel/sched/switch.asm) left rbp and the return address at
rsp+40 and rsp+48; from there the frame pointers (-fno-omit-frame-pointer)
lead back up the stack."""

    def __init__(self):
        super().__init__("qs-bt", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise gdb.GdbError("usage: qs-bt PID")
        pid = int(arg)
        task = None
        for t in _list(gdb.parse_and_eval("all_tasks"), "struct task", "tasks"):
            if int(t["pid"]) == pid:
                task = t
        if task is None:
            raise gdb.GdbError(f"no task with pid {pid}")
        if int(task.address) in _currents():
            raise gdb.GdbError(f"pid {pid} is running: use `bt` in its CPU's thread")
        u64 = gdb.lookup_type("unsigned long").pointer()
        rd = lambda a: int(gdb.Value(a).cast(u64).dereference())
        lo, hi = int(task["stack"]), int(task["stack"]) + int(task["stack_size"])
        rsp = int(task["rsp"])
        rbp, pc = rd(rsp + 40), rd(rsp + 48)
        print(f"#0  {pc:#x} {_sym(pc)}")
        for n in range(1, 32):
            if not (lo <= rbp < hi - 16):
                break
            pc, rbp = rd(rbp + 8), rd(rbp)
            print(f"#{n:<2d} {pc:#x} {_sym(pc)}")


class QsOnline(gdb.Command):
    """qs-online: each CPU online, or offline and parked (CPU hotplug, docs/hotplug.md)."""

    def __init__(self):
        super().__init__("qs-online", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        n = _nr_cpus()
        on = [c for c in range(n) if _online(c)]
        for c in range(n):
            try:
                parked = bool(int(gdb.parse_and_eval(f"cpu_parked[{c}]")))
            except gdb.error:
                parked = False
            state = "online" if _online(c) else ("offline, parked" if parked else "offline")
            print(f"cpu{c}: {state}")
        print(f"{len(on)} of {n} online")


QsTasks()
QsOnline()
QsRunqueues()
QsSchedStats()
QsBt()
