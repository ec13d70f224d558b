"""gdb helpers for a run make replay STOP= stopped (kernel/time/replay_stop.c,
docs/replay.md). Loads with quiescent.py.

Commands:
    qs-replay-frames   where the stop found each CPU: the stopping CPU's
                       call to replay_stop() (from its tick or a printk),
                       and each parked CPU's interrupted frame (the NMI
                       that parked it), symbolized

Data: replay_stop_cpu (-1 while the run goes on), replay_stopped_ns, the
per-CPU struct replay_frame (rip, rsp, rbp, by_nmi, parked).
"""
import gdb

QS_GROUP = "Replay: a run stopped by make replay STOP= (kernel/time/replay_stop.c)"


def _per_cpu(var, cpu):
    sym = gdb.parse_and_eval(var)
    base = int(gdb.parse_and_eval(f"(unsigned long)&{var}"))
    off = int(gdb.parse_and_eval(f"__per_cpu_offset[{int(cpu)}]"))
    return gdb.Value(base + off).cast(sym.type.pointer()).dereference()


def _where(pc):
    """pc as function+offset and file:line."""
    block = gdb.block_for_pc(pc)
    while block is not None and block.function is None:
        block = block.superblock
    name = f"{block.function.name}+{pc - block.start:#x}" if block is not None else "?"
    sal = gdb.find_pc_line(pc)
    line = f"{sal.symtab.filename}:{sal.line}" if sal.symtab else "?"
    return f"{name} ({line})"


class QsReplayFrames(gdb.Command):
    """qs-replay-frames: where the stop found every CPU (the parked CPUs' interrupted frames)."""

    def __init__(self):
        super().__init__("qs-replay-frames", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        stopper = int(gdb.parse_and_eval("replay_stop_cpu"))
        if stopper < 0:
            raise gdb.GdbError("qs-replay-frames: the run was not stopped (make replay STOP=)")
        print(f"replay: stopped at {int(gdb.parse_and_eval('replay_stopped_ns'))} ns by CPU "
              f"{stopper}")
        for cpu in range(max(1, int(gdb.parse_and_eval("nr_cpu_ids")))):
            if cpu == stopper:
                print(f"cpu{cpu}: the stopping CPU: `thread {cpu + 1}` then `bt`")
                continue
            f = _per_cpu("replay_frame", cpu)
            if not int(f["parked"]):
                print(f"cpu{cpu}: not parked (offline, or it did not answer the NMI)")
                continue
            how = "interrupted by the NMI at" if int(f["by_nmi"]) else "reached the stop itself, from"
            print(f"cpu{cpu}: {how} {int(f['rip']):#x} {_where(int(f['rip']))}, "
                  f"rsp {int(f['rsp']):#x}")


QsReplayFrames()
