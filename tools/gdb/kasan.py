"""gdb helpers for KASAN (kernel/kasan/, docs/kasan.md), on a CONFIG_KASAN
build. Loads with the others (tools/gdb/quiescent.py), or:

    (gdb) source tools/gdb/kasan.py

Commands:
    qs-kasan ADDR     the kmalloc object holding ADDR: its cache, state and
                      requested size, the shadow byte at ADDR, and the stacks
                      that allocated it, freed it and queued its free with
                      call_rcu()/kfree_rcu(), each frame with file:line

Data, read as the kernel's kmalloc_find_object() does: the page descriptor
(pmm.c's pages[], PHYS_OFFSET's direct map) says PG_SLAB (class cls,
KASAN's record array at page frame `private`) or PG_LARGE (the record at
physical `freemap` of the first page); each record's stacks are handles
into stackdepot.c's pool (handle n is pool[n - 1]).
"""
import gdb

QS_GROUP = "KASAN (CONFIG_KASAN builds)"
PHYS_OFFSET = 0xffff800000000000
SHADOW_OFFSET = 0xdffffc0000000000
PG_SLAB, PG_LARGE, PG_BUDDY = 0x04, 0x08, 0x02
STATES = {0: "free (back in kmalloc)", 1: "live", 2: "freed (in the quarantine)"}


def _v(expr):
    return gdb.parse_and_eval(expr)


def _frame(ip):
    sal = gdb.find_pc_line(ip - 1)
    block = gdb.block_for_pc(ip - 1)
    fn = block.function if block else None
    while block and not fn:
        block = block.superblock
        fn = block.function if block else None
    where = f"{sal.symtab.filename.lstrip('./')}:{sal.line}" if sal.symtab else "?"
    name = fn.print_name if fn else gdb.execute(f"info symbol {ip - 1:#x}", to_string=True).split()[0]
    return f"  [<{ip:016x}>] {name}  {where}"


def _stack(handle):
    if not handle:
        return ["  (no stack recorded)"]
    pool = _v("'stackdepot.c'::pool")
    rec = pool[handle - 1]
    return [_frame(int(rec["ip"][i])) for i in range(int(rec["n"]))]


def find_object(addr):
    """(start, slot bytes, class bytes or 0, struct kasan_obj_meta value), or None."""
    if addr < PHYS_OFFSET:
        return None
    pages = _v("'pmm.c'::pages")
    pfn = (addr - PHYS_OFFSET) >> 12
    pg = pages[pfn]
    meta_t = gdb.lookup_type("struct kasan_obj_meta").pointer()
    if int(pg["flags"]) & PG_SLAB:
        size = 16 << int(pg["cls"])
        idx = (addr & 4095) // size
        meta = gdb.Value(PHYS_OFFSET + (int(pg["private"]) << 12)).cast(meta_t) + idx
        return addr & ~(size - 1), size, size, meta.dereference()
    for back in range(0, min(1024, pfn + 1)):
        h = pages[pfn - back]
        if int(h["flags"]) & PG_LARGE:
            if back >= (1 << int(h["order"])):
                return None
            meta = gdb.Value(PHYS_OFFSET + int(h["freemap"])).cast(meta_t).dereference()
            return PHYS_OFFSET + ((pfn - back) << 12), 4096 << int(h["order"]), 0, meta
        if int(h["flags"]) & (PG_SLAB | PG_BUDDY):
            return None
    return None


class QsKasan(gdb.Command):
    """The kmalloc object holding an address, with its allocation, free and call_rcu() stacks.

    qs-kasan ADDR (any expression: a pointer, a->bad in a report's frame)."""

    def __init__(self):
        super().__init__("qs-kasan", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if not arg:
            raise gdb.GdbError("qs-kasan ADDR")
        addr = int(_v(arg).cast(gdb.lookup_type("unsigned long")))
        try:
            _v("kasan_init")
        except gdb.error:
            raise gdb.GdbError("qs-kasan: this kernel is built without CONFIG_KASAN")
        shadow = int(gdb.selected_inferior().read_memory((addr >> 3) + SHADOW_OFFSET, 1)[0][0]) \
            if addr >= PHYS_OFFSET else None
        obj = find_object(addr)
        out = [f"address {addr:#x}: shadow byte " + (f"{shadow:#04x}" if shadow is not None else "none")]
        if not obj:
            out.append("  not in a kmalloc object")
            gdb.write("\n".join(out) + "\n")
            return
        start, slot, cls, m = obj
        cache = f"kmalloc-{cls}" if cls else f"{slot // 4096} whole pages"
        out.append(f"object {start:#x} ({cache}), {addr - start} bytes in; "
                   f"{STATES.get(int(m['state']), int(m['state']))}, {int(m['size'])} bytes asked for")
        out.append(f"allocated by task {int(m['alloc_pid'])} on CPU {int(m['alloc_cpu'])}:")
        out += _stack(int(m["alloc_stack"]))
        if int(m["state"]) != 1 and int(m["free_stack"]):
            out.append(f"freed by task {int(m['free_pid'])} on CPU {int(m['free_cpu'])}, "
                       f"after grace period {int(m['free_gp'])}:")
            out += _stack(int(m["free_stack"]))
        if int(m["rcu_stack"]):
            out.append(f"call_rcu() queued its free at grace period {int(m['rcu_gp'])} "
                       f"(TSC {int(m['rcu_tsc'])}):")
            out += _stack(int(m["rcu_stack"]))
        gdb.write("\n".join(out) + "\n")


QsKasan()
