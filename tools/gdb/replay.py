"""gdb helpers for a run make replay STOP= stopped (kernel/time/replay_stop.c,
docs/replay.md). Loads with quiescent.py.

Commands:
    qs-replay-frames   where the stop found each CPU: the stopping CPU's
                       call to replay_stop() (from its tick or a printk),
                       and each parked CPU's interrupted frame (the NMI
                       that parked it), symbolized, each with the calls
                       below it, walked by frame pointer: gdb's bt stops
                       at the interrupt's assembly entry
    qs-reverse-continue
                       in a make replay RR=1 replay: back to the last time
                       an enabled breakpoint or watchpoint was hit before
                       here, as reverse-continue would (which never comes
                       back in QEMU 7.2), by replaying the record forward

Data: replay_stop_cpu (-1 while the run goes on), replay_stopped_ns, the
per-CPU struct replay_frame (rip, rsp, rbp, by_nmi, parked).
"""
import struct

import gdb

QS_GROUP = "Replay: a run stopped by make replay STOP= (kernel/time/replay_stop.c)"


def _where(pc):
    """pc as function+offset and file:line."""
    block = gdb.block_for_pc(pc)
    while block is not None and block.function is None:
        block = block.superblock
    if block is not None:
        name = f"{block.function.name}+{pc - block.start:#x}"
    else:                       # assembly has no debug block: the symbol table's name
        name = gdb.execute(f"info symbol {pc:#x}", to_string=True).split(" in section")[0]
        name = name.replace(" + ", "+").strip()
    sal = gdb.find_pc_line(pc)
    line = f"{sal.symtab.filename}:{sal.line}" if sal.symtab else "?"
    return f"{name} ({line})"


KERNEL_TEXT = 0xffffffff80000000


def _callers(rbp, limit=16):
    """The return addresses above a frame, by its saved frame pointers
    (the kernel keeps them: its own Call Traces walk them the same way)."""
    out, inf = [], gdb.selected_inferior()
    for _ in range(limit):
        if rbp < 0xffff800000000000:
            break
        try:
            nxt, ret = struct.unpack("<QQ", inf.read_memory(rbp, 16).tobytes())
        except gdb.MemoryError:
            break
        if ret < KERNEL_TEXT:
            break
        out.append(ret)
        if nxt <= rbp:
            break
        rbp = nxt
    return out


def _print_callers(rbp):
    for ret in _callers(rbp):
        print(f"        called from {_where(ret - 1)}")


def _interrupted_regs(cpu):
    """The registers the stopping CPU's interrupt saved (interrupt_dispatch's
    regs), or None when the stop came from a printk, not a tick."""
    gdb.execute(f"thread {cpu + 1}", to_string=True)
    frame = gdb.newest_frame()
    while frame is not None:
        if frame.name() == "interrupt_dispatch":
            try:
                return frame.read_var("regs").dereference()
            except (gdb.error, ValueError):
                return None
        frame = frame.older()
    return None


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
        selected = gdb.selected_thread()
        try:
            self.each_cpu(stopper)
        finally:
            if selected is not None:
                selected.switch()

    def each_cpu(self, stopper):
        for cpu in range(max(1, int(gdb.parse_and_eval("nr_cpu_ids")))):
            if cpu == stopper:
                regs = _interrupted_regs(cpu)
                if regs is None:
                    print(f"cpu{cpu}: the stopping CPU: `thread {cpu + 1}` then `bt`")
                    continue
                print(f"cpu{cpu}: the stopping CPU, its tick interrupted {int(regs['rip']):#x} "
                      f"{_where(int(regs['rip']))}")
                _print_callers(int(regs["rbp"]))
                continue
            f = gdb.parse_and_eval(f'$percpu("replay_frame", {cpu})')     # quiescent.py's
            if not int(f["parked"]):
                print(f"cpu{cpu}: not parked (offline, or it did not answer the NMI)")
                continue
            how = "interrupted by the NMI at" if int(f["by_nmi"]) else "reached the stop itself, from"
            print(f"cpu{cpu}: {how} {int(f['rip']):#x} {_where(int(f['rip']))}, "
                  f"rsp {int(f['rsp']):#x}")
            _print_callers(int(f["rbp"]))


import re


def _icount():
    out = gdb.execute("monitor info replay", to_string=True)
    m = re.search(r"instruction count = (\d+)", out)
    if not m:
        raise gdb.GdbError("qs-reverse-continue: not a record's replay (make replay RR=1): " +
                           out.strip())
    return int(m.group(1))


def _seek(icount, stops):
    """To icount with every breakpoint in stops disabled. QEMU's replay_seek
    loads the record's snapshot and replays forward to icount when the
    machine runs; it stops there as if interrupted."""
    for b in stops:
        b.enabled = False
    gdb.execute(f"monitor replay_seek {icount}", to_string=True)
    gdb.execute("continue", to_string=True)
    for b in stops:
        b.enabled = True


class QsReverseContinue(gdb.Command):
    """qs-reverse-continue: back to the last hit of an enabled breakpoint or watchpoint before here (RR=1).

QEMU 7.2's own reverse-continue loads the record's snapshot a second
time from a timer and deadlocks (docs/replay.md). This does what it
would from the monitor instead: it notes the instruction count here,
replays the record from its start to here with the breakpoints and
watchpoints enabled, noting the count at each hit, and then seeks to
the last one. A watchpoint's hit is just after the write, as gdb stops
on one going forward. Each pass replays the record from its start: a
few seconds for a second of a one-CPU run."""

    def __init__(self):
        super().__init__("qs-reverse-continue", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        here = _icount()
        stops = [b for b in gdb.breakpoints() if b.enabled]
        if not stops:
            raise gdb.GdbError("qs-reverse-continue: no enabled breakpoint or watchpoint to go back to")
        _seek(1, stops)          # (a seek to 0 is already there: it would run on)
        gdb.execute(f"monitor replay_break {here}", to_string=True)
        hits = []
        while True:
            gdb.execute("continue", to_string=True)
            now = _icount()
            if now >= here:
                break
            hits.append(now)
        if not hits:
            _seek(here, stops)
            print(f"qs-reverse-continue: no hit before instruction {here}: back where it began")
            return
        at = hits[-1]
        _seek(at, stops)
        print(f"qs-reverse-continue: the last of {len(hits)} hits before instruction {here} is at "
              f"instruction {at}, now here")
        gdb.execute("frame")


QsReplayFrames()
QsReverseContinue()
