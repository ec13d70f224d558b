"""The cost model of the modelled figures (docs/figures.md, "Modelled
figures"): the time an operation takes on one CPU is its counted events
times what each costs on a machine, and N CPUs do N operations in that
time. The counts are the coherence plugin's per operation, from the cell
at N CPUs (tools/c2c/c2c.c, tools/qs/c2c.py), so what changes with N is
the transfers: the lines the other CPUs wrote last.

    t(N) = insns * instruction + rmw * atomic + xfer * transfer + cold * memory
    throughput(N) = N / t(N);  efficiency(N) = t(1) / t(N)

What it leaves out, on purpose: contention beyond the transfer itself
(two CPUs queueing for one line: rare over 1024 bucket locks), caches
of finite size (the plugin's are infinite, and the table fits the
paper's 256 KiB L2 anyway) and the instructions' overlap. It ranks
designs by the mechanism the papers argue from; it is not a simulator.

Two machines, one column each. Seed 001 Table 1 (700 MHz Pentium III,
the paper's) is what its Figures 1, 4 and 5 were measured on. The second
is a current server core with its sources; its atomic and memory costs
are the usual published orders of magnitude, not measurements of ours.
"""

MACHINES = {
    "p3": dict(
        name="seed 001 Table 1: 700 MHz Pentium III",
        source="seed 001 (McKenney et al., read-copy update), Table 1",
        instruction=0.7, atomic=58.2, transfer=(170.4, 360.9), memory=162.4),
    "bdw": dict(
        name="Xeon E5-2660 v4 (Broadwell-EP, 2016), one socket",
        source=("transfer: Intel Memory Latency Checker's L2-to-L2 modified intervention "
                "latency on a Xeon E5-2660 v4, same socket, 40.3-42.3 ns (J. McCalpin, Intel "
                "developer forum, \"Core-to-Core Communication Latency in Skylake/Kaby Lake\"); "
                "instruction: one a cycle at its 3.0 GHz turbo; atomic: a locked add's "
                "latency, about 18 cycles on Intel cores of that generation (Agner Fog's "
                "instruction tables); memory: local DRAM, about 85 ns (MLC's idle latency on "
                "such parts, approximate)"),
        instruction=0.33, atomic=6.0, transfer=(40.3, 42.3), memory=85.0),
}


def op_ns(per_op, machine, which="low"):
    """ns an operation takes on one CPU; per_op: the plugin's counts per
    operation (insns, rmw, xfer, cold); which: the transfer cost's low or
    high end, or mid."""
    m = MACHINES[machine]
    lo, hi = m["transfer"]
    xfer = {"low": lo, "high": hi, "mid": (lo + hi) / 2}[which]
    return (per_op["insns"] * m["instruction"] + per_op["rmw"] * m["atomic"]
            + per_op["xfer"] * xfer + per_op["cold"] * m["memory"])


def throughput(per_op, n, machine, which="low"):
    """Operations a microsecond on n CPUs."""
    return n * 1000.0 / op_ns(per_op, machine, which)


def efficiency(per_op_1, per_op_n, machine, which="low"):
    """The n-CPU rate over n times the 1-CPU rate: t(1) / t(n)."""
    return op_ns(per_op_1, machine, which) / op_ns(per_op_n, machine, which)


COUNTS = ("insns", "loads", "stores", "rmw", "xfer", "inval", "cold")


def per_op(cell, ops):
    """A plugin cell's counts (qs.c2c.Counts.cells) per operation."""
    return {k: cell[k] / ops for k in COUNTS}
