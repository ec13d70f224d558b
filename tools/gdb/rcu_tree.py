"""qs-rcu for tree, Tree RCU (kernel/rcu/rcu_tree.c, after Linux's
kernel/rcu/tree.c): rcu_state's grace-period numbers, the tree of rcu_nodes
drawn level by level with each node's qsmask (the children, and below
them the CPUs, that still owe the grace period a quiescent state), then
each CPU's view of the grace period and its segmented callback list."""
from quiescent import nr_cpus, per_cpu
import gdb
import rcu_common

SEGS = ("done", "wait", "next_ready", "next")


def bits(mask):
    return [b for b in range(64) if mask >> b & 1]


def node_cpus_owing(nodes, i):
    """The CPUs below node i that still owe (walking qsmask down)."""
    n = nodes[i]
    m = int(n["qsmask"])
    if int(n["leaf"]):
        return [int(n["grplo"]) + b for b in bits(m)]
    out = []
    for j, c in enumerate(nodes):
        if int(c["parent"]) == int(n.address) and m & int(c["grpmask"]):
            out += node_cpus_owing(nodes, j)
    return out


def show():
    st = gdb.parse_and_eval("rcu_state")
    gpnum, completed = int(st["gpnum"]), int(st["completed"])
    state = "in progress" if gpnum != completed else "idle"
    print(f"rcu (tree): gpnum {gpnum} completed {completed} ({state}), gp_needed "
          f"{int(st['gp_needed'])}, gp_flags {int(st['gp_flags']):#x}; forcing passes "
          f"{int(st['fqs_passes'])}, idle CPUs reported {int(st['fqs_reported'])}, "
          f"reschedule IPIs {int(st['fqs_kicked'])}")
    nr_nodes, nr_levels = int(st["nr_nodes"]), int(st["nr_levels"])
    arr = gdb.parse_and_eval("rcu_node")
    nodes = [arr[i] for i in range(nr_nodes)]
    print(f"  tree: {nr_levels} level{'s' if nr_levels != 1 else ''}, {nr_nodes} rcu_node"
          f"{'s' if nr_nodes != 1 else ''}")
    for lvl in range(nr_levels):
        first, count = int(st["level_first"][lvl]), int(st["level_count"][lvl])
        for i in range(first, first + count):
            n = nodes[i]
            owing = node_cpus_owing(nodes, i) if gpnum != completed else []
            kind = "root" if lvl == 0 else ("leaf" if int(n["leaf"]) else "node")
            print(f"  {'  ' * lvl}{kind} {i} (level {lvl}, cpus {int(n['grplo'])}-"
                  f"{int(n['grphi'])}): qsmask {int(n['qsmask']):#x} of qsmaskinit "
                  f"{int(n['qsmaskinit']):#x}, gpnum {int(n['gpnum'])} completed "
                  f"{int(n['completed'])}; CPUs that still owe: "
                  f"{' '.join(map(str, owing)) if owing else 'none'}")
    rcu_common.show_generic()
    for cpu in range(nr_cpus()):
        rd = per_cpu("rcu_data", cpu)
        if not int(rd["ready"]):
            print(f"cpu{cpu}: not online in RCU yet")
            continue
        print(f"cpu{cpu}: gpnum {int(rd['gpnum'])} completed {int(rd['completed'])} "
              f"qs_pending {int(rd['qs_pending'])} passed_qs {int(rd['passed_qs'])} "
              f"dynticks {int(rd['dynticks'])} (snapshot {int(rd['dynticks_snap'])})")
        cbl = rd["cbl"]
        for s, name in enumerate(SEGS):
            label = name
            if name in ("wait", "next_ready") and int(cbl["len"][s]):
                label += f" (waits for grace period {int(cbl['gp'][s])})"
            rcu_common.print_list(label, cbl["seg"][s])
