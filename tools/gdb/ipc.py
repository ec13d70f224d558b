"""gdb helper for SysV IPC (kernel/ipc, docs/ipc.md). Loads on its own:

    (gdb) source tools/gdb/ipc.py

Command:
    qs-ipc     the semaphore ID table (sem_ids: mode, size, in_use, max_id, seq,
               entries) and each set in it (slot, id, key, owner, mode, nsems,
               the deleted flag, waiters, SEM_UNDO structures), then every
               object or array handed to ipc_rcu_free() whose grace period
               has not ended yet (ipc_rcu_pending), with the function that
               freed it (freeary: a set; grow_ary: an old array)

Data: struct ipc_ids sem_ids (kernel/ipc/sem.c), struct sem_array
(kernel/ipc/sem.h), the list ipc_rcu_pending of struct ipc_rcu_kmalloc
(kernel/ipc/ipc_rcu.c), ipc_mode (kernel/ipc/util.c).
"""
import gdb

SEQ_MULTIPLIER = 32768


def _list_len(head, limit=100000):
    node, first, n = head["next"], int(head.address), 0
    while int(node) != first and n < limit:
        n += 1
        node = node["next"]
    return n


def show_table():
    ids = gdb.parse_and_eval("sem_ids")
    mode = "rcu" if int(gdb.parse_and_eval("(int)ipc_mode")) == 0 else "global"
    size, entries = int(ids["size"]), ids["entries"]
    print(f"ipc: mode {mode}; sem_ids: size {size}, in_use {int(ids['in_use'])}, "
          f"max_id {int(ids['max_id'])}, seq {int(ids['seq'])}, entries {int(entries):#x}")
    sma_t = gdb.lookup_type("struct sem_array").pointer()
    rows = []
    for lid in range(size):
        p = entries[lid]["p"]
        if int(p) == 0:
            continue
        sma = p.cast(sma_t).dereference()
        perm = sma["sem_perm"]
        seq = int(perm["seq"])
        rows.append((lid, SEQ_MULTIPLIER * seq + lid, int(perm["key"]) & 0xffffffff,
                     int(perm["uid"]), int(perm["mode"]), int(sma["sem_nsems"]),
                     int(perm["deleted"]), _list_len(sma["sem_pending"]),
                     _list_len(sma["sem_undo"]), int(p)))
    if not rows:
        print("  (no sets)")
        return
    print(f"  {'slot':>4} {'id':>8} {'key':>10} {'owner':>5} {'mode':>5} {'nsems':>5} "
          f"{'deleted':>7} {'waiters':>7} {'undo':>4}  object")
    for r in rows:
        print(f"  {r[0]:>4} {r[1]:>8} {r[2]:#010x} {r[3]:>5} {r[4]:>5o} {r[5]:>5} {r[6]:>7} "
              f"{r[7]:>7} {r[8]:>4}  {r[9]:#x}")


def show_pending():
    head = gdb.parse_and_eval("ipc_rcu_pending")
    hdr_t = gdb.lookup_type("struct ipc_rcu_kmalloc")
    off = next(f.bitpos // 8 for f in hdr_t.fields() if f.name == "pending")
    n = int(gdb.parse_and_eval("ipc_rcu_npending"))
    print(f"waiting for a grace period (ipc_rcu_free, Figure 12): {n}")
    node, first, shown = head["next"], int(head.address), 0
    while int(node) != first and shown < 32:
        hdr = gdb.Value(int(node) - off).cast(hdr_t.pointer()).dereference()
        data = int(hdr.address) + hdr_t.sizeof
        try:
            name = hdr["freed_by"].string() if int(hdr["freed_by"]) else "?"
        except gdb.error:
            name = "?"
        where = name
        what = ""
        if name == "freeary":
            sma = gdb.Value(data).cast(gdb.lookup_type("struct sem_array").pointer()).dereference()
            perm = sma["sem_perm"]
            what = (f"semaphore set id {int(sma['sem_id'])} key {int(perm['key']) & 0xffffffff:#010x}"
                    f" nsems {int(sma['sem_nsems'])} deleted {int(perm['deleted'])}")
        elif name == "grow_ary":
            what = f"old entries array ({int(hdr['size']) // 8} slots)"
        print(f"  {data:#x} {int(hdr['size']):>6} bytes, freed by {where}: {what}")
        shown += 1
        node = node["next"]
    if n > shown:
        print(f"  ... {n - shown} more")


class QsIpc(gdb.Command):
    """qs-ipc: the SysV semaphore ID table and the objects waiting for a grace period."""

    def __init__(self):
        super().__init__("qs-ipc", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        try:
            gdb.parse_and_eval("&sem_ids")
        except gdb.error:
            print("qs-ipc: no kernel/ipc in this kernel")
            return
        show_table()
        show_pending()


QsIpc()
