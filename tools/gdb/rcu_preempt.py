"""qs-rcu for preempt, rcu-preempt (kernel/rcu/rcu_preempt.c + rcu_krcud.c,
seed 000 section 5.7 and Figure 33): first krcud's view (batches,
rcu_cpumask, the daemons and each CPU's lists, where qsctr counts voluntary
switches only), then each CPU's pair of preempted-task counters with which
one is curr (this batch waits for it to reach zero) and which is next, and
the tasks that hold a counter now: preempted since their last voluntary
switch, affiliated with the CPU whose counter they hold. CPU hotplug
(kernel/rcu/rcu_preempt_hotplug.c): the orphan pair, which holds the tasks
moved off CPUs that went offline, and which every batch waits for like a
CPU's pair."""
from quiescent import nr_cpus, per_cpu
import gdb
import rcu_krcud


def _tasks():
    """(name, pid, counter address) of every task holding a counter."""
    head = gdb.parse_and_eval("all_tasks")
    task_t = gdb.lookup_type("struct task")
    off = next(f.bitpos // 8 for f in task_t.fields() if f.name == "tasks")
    start = int(head.address)
    node = head["next"]
    out, n = [], 0
    while int(node) != start and n < 10000:
        t = gdb.Value(int(node) - off).cast(task_t.pointer()).dereference()
        c = int(t["rcu_preempt_cntr"])
        if c:
            out.append((t["name"].string(), int(t["pid"]), c))
        node = node["next"]
        n += 1
    return out


def show():
    rcu_krcud.show()
    holders = _tasks()
    where = {}
    for cpu in range(nr_cpus()):
        d = per_cpu("rcu_preempt_data", cpu)
        base = int(d["rcu_preempt_cntr"].address)
        size = int(d["rcu_preempt_cntr"][0].type.sizeof)
        curr = int(d["curr_preempt_cntr"])
        ci = (curr - base) // size if curr else 1
        vals = [int(d["rcu_preempt_cntr"][i]["counter"]) for i in (0, 1)]
        for i in (0, 1):
            where[base + i * size] = (cpu, "curr" if i == ci else "next")
        hold = int(d["holdover"])
        print(f"cpu{cpu}: rcu_preempt_cntr[{ci}] (curr) {vals[ci]}, [{1 - ci}] (next) {vals[1 - ci]}"
              f"{' <- this batch waits for curr to reach 0' if vals[ci] else ''}; "
              f"gets {int(d['gets'])} (holdover {int(d['holdover_gets'])}) puts {int(d['puts'])} "
              f"swaps {int(d['swaps'])}"
              f"{'; holdover ' + gdb.Value(hold).cast(gdb.lookup_type('struct task').pointer())['name'].string() if hold else ''}")
    try:
        orph = gdb.parse_and_eval("rcu_preempt_orphan_cntr")
        ocurr = int(gdb.parse_and_eval("orphan_curr"))
    except gdb.error:
        orph = None
    if orph is not None:
        base = int(orph.address)
        size = int(orph[0].type.sizeof)
        ci = (ocurr - base) // size if ocurr else 1
        vals = [int(orph[i]["counter"]) for i in (0, 1)]
        for i in (0, 1):
            where[base + i * size] = ("orphan", "curr" if i == ci else "next")
        print(f"orphans (tasks moved off offline CPUs): [{ci}] (curr) {vals[ci]}, "
              f"[{1 - ci}] (next) {vals[1 - ci]}"
              f"{' <- this batch waits for curr to reach 0' if vals[ci] else ''}")
    if holders:
        print("preempted tasks holding a counter (cpu_preempt_cntr):")
        for name, pid, c in holders:
            cpu, which = where.get(c, (None, "?"))
            if cpu == "orphan":
                print(f"  {name} (pid {pid}), moved off an offline CPU: the orphans' {which} counter")
            else:
                print(f"  {name} (pid {pid}), affiliated with cpu{cpu}: its {which} counter")
    else:
        print("no preempted task holds a counter")
