"""gdb helpers for the IPv4 route cache (kernel/net/route_cache.c, seed 000
section 2.4; docs/net-route-cache.md). Loads on its own:

    (gdb) source tools/gdb/rtcache.py

Commands:
    qs-rtcache             the mode, generation and bounds, how many buckets have
                           chains of each length, the longest chains, rtstat's sums
    qs-rtcache BUCKET      that bucket's chain, entry by entry
    qs-rtcache all         every entry of every chain

Data: rt_hash_table[RT_HASH_SIZE] of struct rt_hash_bucket (a hlist chain and
2.4's rwlock), each entry a struct rtable linked by rt_next, with its
dst_entry first (u.dst: reference count, last use, device). An entry made
before the last flush (rt_genid moved on) is stale: lookups pass over it and
GC removes it. The whole table is read from memory in one go.
"""
import struct

import gdb

MODES = {0: "rcu", 1: "rwlock", 2: "off"}
STATS = ("in_hit", "in_slow_tot", "out_hit", "out_slow_tot", "gc_total", "gc_ignored",
         "gc_goal_miss", "gc_dst_overflow", "chain_evictions", "uncached")


def _v(expr):
    return gdb.parse_and_eval(expr)


def _ip(a):
    """A network-order address as the kernel holds it (a little-endian u32)."""
    return ".".join(str(b) for b in struct.pack("<I", a & 0xffffffff))


def _chains():
    """{bucket: [address of each struct rtable]} for every non-empty bucket."""
    table = _v("rt_hash_table")
    n = int(table.type.range()[1]) + 1
    bsize = int(table.type.target().sizeof)
    base = int(_v("(unsigned long)&rt_hash_table[0]"))
    off = int(_v("(unsigned long)&((struct rtable *)0)->rt_next"))
    mem = bytes(gdb.selected_inferior().read_memory(base, n * bsize))
    inf = gdb.selected_inferior()
    out = {}
    for b in range(n):
        node = struct.unpack_from("<Q", mem, b * bsize)[0]     # chain.first
        chain = []
        while node and len(chain) < 1000:
            chain.append(node - off)
            node = struct.unpack("<Q", bytes(inf.read_memory(node, 8)))[0]
        if chain:
            out[b] = chain
    return out


def _entry_line(addr, genid):
    rt = _v(f"*(struct rtable *){addr:#x}")
    dst = rt["u"]["dst"]
    dev = dst["dev"]["name"].string() if int(dst["dev"]) else "?"
    stale = " stale" if int(rt["rt_genid"]) != genid else ""
    obs = " unhashed" if int(dst["obsolete"]) else ""
    age = int(_v("jiffies")) - int(dst["lastuse"])
    key = rt["key"]
    return (f"  {addr:#x} dst {_ip(int(key['dst'])):<15} src {_ip(int(key['src'])):<15} "
            f"iif {int(key['iif'])} tos {int(key['tos']):#x} -> gw {_ip(int(rt['rt_gateway'])):<15} "
            f"{dev:<5} ref {int(dst['__refcnt']['counter'])} use {int(dst['__use'])} "
            f"age {age} jiffies{stale}{obs}")


def _stat_sums():
    try:
        import quiescent
        ncpu = quiescent.nr_cpus()
        sums = {k: 0 for k in STATS}
        for c in range(ncpu):
            s = quiescent.per_cpu("rt_cache_stat", c)
            for k in STATS:
                sums[k] += int(s[k])
        return sums
    except (gdb.error, ImportError):
        return None


class QsRtcache(gdb.Command):
    """qs-rtcache [BUCKET | all]: the route cache's buckets and entries (seed 000 2.4)."""

    def __init__(self):
        super().__init__("qs-rtcache", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        arg = arg.strip()
        genid = int(_v("rt_genid.counter"))
        chains = _chains()
        if arg:
            buckets = sorted(chains) if arg == "all" else [int(arg, 0)]
            for b in buckets:
                print(f"bucket {b}: {len(chains.get(b, []))} entries")
                for addr in chains.get(b, []):
                    print(_entry_line(addr, genid))
            return
        n = int(_v("sizeof(rt_hash_table) / sizeof(rt_hash_table[0])"))
        chain_max = int(_v("ip_rt_chain_max"))
        print(f"rtcache={MODES.get(int(_v('rt_mode')), '?')} genid={genid} "
              f"entries={int(_v('rt_entries.counter'))} (max {int(_v('ip_rt_max_size'))}, "
              f"{chain_max} a chain, {n} buckets)")
        hist = {}
        for chain in chains.values():
            hist[len(chain)] = hist.get(len(chain), 0) + 1
        hist[0] = n - len(chains)
        print("chain length: buckets  " +
              "  ".join(f"{k}:{hist[k]}" for k in sorted(hist)))
        longest = sorted(chains.items(), key=lambda kv: -len(kv[1]))[:5]
        if longest:
            print("longest: " + ", ".join(f"bucket {b} ({len(c)})" for b, c in longest))
        sums = _stat_sums()
        if sums:
            print("rtstat: " + " ".join(f"{k}={v}" for k, v in sums.items()))


QsRtcache()
