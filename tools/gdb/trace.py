"""gdb helpers for the per-CPU trace buffers (kernel/trace/, docs/rcu/timeline.md).
Loads on its own:

    (gdb) source tools/gdb/trace.py

Commands:
    qs-trace [N] [CPU]   the last N records (default 30), of every CPU or one,
                         merged by timestamp: time, CPU, event, a, b

Data: trace_bufs[cpu] (struct trace_buf: head, dropped, rec[]),
trace_entries (a power of two), trace_mask, trace_event_names[]. A slot
whose seq is not its index + 1 is being written (or was reset) and is
skipped, as the kernel's own dump does.
"""
import gdb

QS_GROUP = "Tracing: the per-CPU trace buffers (kernel/trace)"


def _records(cpu, n):
    buf = gdb.parse_and_eval(f"trace_bufs[{cpu}]")
    if int(buf) == 0:
        return []
    entries = int(gdb.parse_and_eval("trace_entries"))
    head = int(buf["head"])
    out = []
    for i in range(max(0, head - min(n, entries)), head):
        r = buf["rec"][i & (entries - 1)]
        if int(r["seq"]) != (i + 1) & 0xffffffff:
            continue
        out.append((int(r["tsc"]), int(r["cpu"]), int(r["type"]), int(r["a"]), int(r["b"])))
    return out


class QsTrace(gdb.Command):
    """qs-trace [N] [CPU]: the last N trace records (default 30), merged by time."""

    def __init__(self):
        super().__init__("qs-trace", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = arg.split()
        n = int(args[0]) if args else 30
        ncpus = int(gdb.parse_and_eval("nr_cpu_ids"))
        cpus = [int(args[1])] if len(args) > 1 else range(ncpus)
        names = gdb.parse_and_eval("trace_event_names")
        nnames = names.type.range()[1] + 1
        khz = int(gdb.parse_and_eval("tsc_khz")) or 1
        recs = sorted(r for cpu in cpus for r in _records(cpu, n))[-n:]
        print(f"trace: mask {int(gdb.parse_and_eval('trace_mask')):#x}, "
              f"{int(gdb.parse_and_eval('trace_entries'))} records per CPU; the last {len(recs)}:")
        t0 = recs[-1][0] if recs else 0
        for tsc, cpu, typ, a, b in recs:
            name = names[typ].string() if typ < nnames else f"?{typ}"
            print(f"  {(tsc - t0) * 1000.0 / khz:12.3f} us  cpu{cpu:<2d} {name:14s} {a:#x} {b:#x}")


QsTrace()
