"""gdb view of SRCU (include/srcu.h, kernel/rcu/srcu.c, docs/rcu/srcu.md).
Loads with quiescent.py (or on its own: source tools/gdb/srcu.py).

Command:
    qs-srcu [NAME]   every SRCU domain (srcu_domain_list), or the one called
                     NAME: the rank readers use now (srcu_idx & 1), the grace
                     period (srcu_gp_seq) and its phase (srcu_gp_phase: which
                     rank it waits to drain), each CPU's lock and unlock
                     counts per rank, each rank's sum (readers inside), the
                     call_srcu() callbacks not yet taken by the domain's
                     kthread, and with CONFIG_PROVE_RCU the tasks that hold
                     the domain's read lock (struct task's srcu_held)

Only the sums over all CPUs mean anything: a reader that slept and moved
unlocks on another CPU than it locked, so a CPU's unlocks may exceed its
locks.
"""
import gdb

QS_GROUP = "SRCU: sleepable RCU domains (kernel/rcu/srcu.c)"

PHASES = {
    0: "idle",
    1: "step 1: draining rank {old} (the one readers no longer use)",
    2: "step 3: flipped to rank {new}; draining rank {old} (where the readers were)",
}
U64 = 1 << 64


def _container_of(ptr, typename, member):
    t = gdb.lookup_type(typename)
    off = next(f.bitpos // 8 for f in t.fields() if f.name == member)
    return gdb.Value(int(ptr) - off).cast(t.pointer()).dereference()


def _list(head, typename, member, limit=100000):
    node, first, seen = head["next"], int(head.address), 0
    if int(node) == 0:
        return
    while int(node) != first and seen < limit:
        yield _container_of(node, typename, member)
        node = node["next"]
        seen += 1


def _nr_cpus():
    try:
        return max(1, int(gdb.parse_and_eval("nr_cpu_ids")))
    except gdb.error:
        return 1


def _string(v):
    try:
        return v.string() if int(v) else "?"
    except gdb.error:
        return "?"


def _holders():
    """{domain address: ["name/pid", ...]} from every task's srcu_held
    (filled in only under CONFIG_PROVE_RCU), or None without it."""
    try:
        if "srcu_held" not in [f.name for f in gdb.lookup_type("struct task").fields()]:
            return None
        head = gdb.parse_and_eval("all_tasks")
    except gdb.error:
        return None
    out = {}
    for t in _list(head, "struct task", "tasks"):
        depth = int(t["srcu_held_depth"])
        for i in range(min(depth, 4)):
            out.setdefault(int(t["srcu_held"][i]), []).append(
                f"{t['name'].string()}/{int(t['pid'])}")
    return out


def _callbacks(head):
    import rcu_common
    rcu_common.print_list("call_srcu() callbacks not yet taken", head)


def show_domain(ss, holders):
    idx, seq = int(ss["srcu_idx"]), int(ss["srcu_gp_seq"])
    new, phase = idx & 1, int(ss["srcu_gp_phase"])
    # In step 1 the rank being drained is the one not in use; in step 3 the
    # flip has made the old one inactive: either way it is "not new".
    text = PHASES.get(phase, f"phase {phase}?").format(old=new ^ 1, new=new)
    running = f"grace period {seq // 2 + 1} running, {text}" if seq & 1 else "no grace period running"
    kt = ss["srcu_gp_kthread"]
    kname = kt.dereference()["name"].string() if int(kt) else "none"
    print(f"srcu domain {_string(ss['name'])} ({int(ss.address):#x}): readers use rank {new} "
          f"(srcu_idx {idx}); srcu_gp_seq {seq} ({running}); grace periods completed "
          f"{int(ss['srcu_gp_count'])}; kthread {kname}")
    sums = [[0, 0], [0, 0]]
    for cpu in range(_nr_cpus()):
        sd = ss["sda"][cpu]
        lk = [int(sd["srcu_lock_count"][r]) for r in (0, 1)]
        ul = [int(sd["srcu_unlock_count"][r]) for r in (0, 1)]
        for r in (0, 1):
            sums[r][0] += lk[r]
            sums[r][1] += ul[r]
        if any(lk) or any(ul):
            print(f"  cpu{cpu}: rank 0 lock {lk[0]} unlock {ul[0]} | rank 1 lock {lk[1]} "
                  f"unlock {ul[1]}")
    for r in (0, 1):
        inside = (sums[r][0] - sums[r][1]) % U64
        role = "in use" if r == new else "inactive"
        print(f"  rank {r} ({role}): locks {sums[r][0]} unlocks {sums[r][1]}: "
              f"{inside} reader{'s' if inside != 1 else ''} inside")
    if holders is not None:
        who = holders.get(int(ss.address), [])
        print(f"  tasks holding its read lock (PROVE_RCU): {' '.join(who) if who else 'none'}")
    _callbacks(ss["srcu_cblist"])


class QsSrcu(gdb.Command):
    """qs-srcu [NAME]: SRCU domains: the rank in use, the grace period and its phase,
    per-CPU lock/unlock counts per rank, readers inside, pending call_srcu()."""

    def __init__(self):
        super().__init__("qs-srcu", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        try:
            head = gdb.parse_and_eval("srcu_domain_list")
        except gdb.error:
            raise gdb.GdbError("qs-srcu: no srcu_domain_list in this kernel")
        want = arg.strip()
        domains = list(_list(head, "struct srcu_struct", "srcu_domains"))
        if want:
            domains = [d for d in domains if _string(d["name"]) == want]
        print(f"srcu: {len(domains)} domain{'s' if len(domains) != 1 else ''}"
              + (f" named {want}" if want else ""))
        holders = _holders()
        for ss in domains:
            show_domain(ss, holders)


QsSrcu()
