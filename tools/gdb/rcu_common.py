"""The variant-independent part of the gdb RCU view (qs-rcu).

Reads the grace-period sequence (kernel/rcu/gp_sequence.c: rcu_gp_seq,
rcu_gp_current, rcu_gp_last_ended) and the statistics (kernel/rcu/stats.c:
rcu_cpu_stats), and walks callback lists of struct rcu_head, naming each
callback's function. The per-variant modules
(rcu_ltimer.py, rcu_tiny.py, ...) call these.
"""
import gdb

from quiescent import _int, nr_cpus, per_cpu


def symbol_of(addr):
    """'func+0x12' for a code address, or hex."""
    try:
        block = gdb.block_for_pc(addr)
        while block and not block.function:
            block = block.superblock
        if block and block.function:
            off = addr - block.function.value().address.cast(
                gdb.lookup_type("unsigned long"))
            return f"{block.function.name}+{int(off):#x}"
    except (RuntimeError, gdb.error):
        pass
    return f"{addr:#x}"


def walk_rcu_list(head, limit=8):
    """(count, [(func name, arg)...], note) for a struct list_head of
    rcu_heads. Before the variant's init the head is still zero, and a
    list being edited may point anywhere: say so instead of failing."""
    rcu_head = gdb.lookup_type("struct rcu_head")
    start = int(head.address)
    node = head["next"]
    count, shown = 0, []
    if int(node) == 0:
        return 0, [], "not initialised yet"
    try:
        while int(node) != start and count < 100000:
            h = node.cast(rcu_head.pointer())      # list is the first member
            if len(shown) < limit:
                shown.append((symbol_of(int(h["func"])), int(h["arg"])))
            count += 1
            node = node["next"]
    except gdb.MemoryError:
        return count, shown, f"unreadable after {count}"
    return count, shown, ""


def print_list(label, head, indent="    "):
    count, shown, note = walk_rcu_list(head)
    print(f"{indent}{label}: {count} callback{'s' if count != 1 else ''}"
          + (f" ({note})" if note else ""))
    for func, arg in shown:
        print(f"{indent}  {func}({arg:#x})")
    if count > len(shown):
        print(f"{indent}  ... {count - len(shown)} more")


NONE = (1 << 64) - 1            # ~0UL: no grace period has begun (or ended) yet


def gp_number(expr):
    """A grace-period number, or "none" where the kernel still holds ~0UL."""
    n = _int(expr) & NONE
    return "none" if n == NONE else str(n)


def show_generic():
    started = _int("rcu_gp_seq.started")
    completed = _int("rcu_gp_seq.completed")
    print(f"grace periods: started {started}, completed {completed}"
          f"{' (one in progress)' if started != completed else ''}")
    print(f"last grace period begun: {gp_number('rcu_gp_current')}, last ended: "
          f"{gp_number('rcu_gp_last_ended')}")
    for cpu in range(nr_cpus()):
        s = per_cpu("rcu_cpu_stats", cpu)
        print(f"cpu{cpu}: queued {int(s['queued'])} invoked {int(s['invoked'])} "
              f"qs {int(s['qs'])} longest list {int(s['longest_list'])}")


def cpumask_cpus(mask):
    bits = mask["bits"]
    n = bits.type.range()[1] + 1
    cpus = []
    for i in range(n):
        w = int(bits[i])
        for b in range(64):
            if w >> b & 1:
                cpus.append(i * 64 + b)
    return cpus


def poll_snapshots(gpnum, polling):
    """poll's and poll-percpu's polling state (the names kernel/rcu/poll_common.h
    gives both): print rcu_qsmask, then return, per CPU, (RCU_quiescent,
    its checkpoint, a note on whether it still owes the grace period)."""
    owing = cpumask_cpus(gdb.parse_and_eval("rcu_qsmask"))
    print(f"  rcu_qsmask (CPUs that still owe grace period {gpnum} a quiescent state): "
          f"{' '.join(map(str, owing)) if (polling and owing) else 'none'}")
    checkpoint = gdb.parse_and_eval("rcu_quiescent_checkpoint")
    rows = []
    for cpu in range(nr_cpus()):
        q = int(per_cpu("rcu_quiescent", cpu))
        c = int(checkpoint[cpu])
        note = ""
        if polling and cpu in owing:
            note = " (owes: not moved since the snapshot)" if q == c else \
                   " (moved: clears at the next poll)"
        rows.append((q, c, note))
    return rows
