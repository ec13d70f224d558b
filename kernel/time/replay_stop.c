/*
 * make replay STOP=T (docs/replay.md, tools/replay.py): the kernel stops
 * its own run at virtual time T and holds every CPU where the stop found
 * it, for gdb to look at.
 *
 * Every CPU's tick and every printk (before its line is out: a stop
 * before a failure lands, at the latest, just before its report) compare
 * the time with replay_stop_ns (include/tick.h) and call replay_stop()
 * once it is reached. The comparison is made whatever the value, with no
 * "is a stop set?" test first. The first CPU there parks every other
 * online CPU with an NMI, prints one line, and waits with interrupts off.
 * The host attaches gdb only when that line is out.
 *
 * Why a park, not a gdb breakpoint: a breakpoint needs gdb attached from
 * the first instruction (QEMU's -S), and QEMU moves the virtual clock on
 * when a stopped machine restarts, so a run under gdb was a
 * sub-microsecond offset away from the run it replays, and two such
 * stops differed in time and in every CPU's pc. Without -S the run is the
 * first run's own up to the stop. gdb's attach, later, stops a machine
 * whose CPUs all wait with interrupts off, so no interrupt, timer or
 * other CPU's progress can reach them: each parked CPU's interrupted
 * frame (replay_frame) is where the stop found it, the same every run.
 *
 * The value comes on the command line as replay.stop= with exactly 20
 * decimal digits, which the deterministic mode always passes (all zeros:
 * never), so that a run asked to stop and the run it replays differ in
 * digits only: the parse below, the command line's copies and its echo
 * execute the same instructions for any digits.
 */
#include <tick.h>
#include <time.h>
#include <percpu.h>
#include <printk.h>
#include <smp.h>
#include <cmdline.h>
#include <errno.h>
#include <arch/irq.h>
#include <arch/cpu.h>

u64 replay_stop_ns = ~0ULL;
int replay_stop_cpu = -1;		/* the CPU that stopped the run */
u64 replay_stopped_ns;			/* the time it stopped at */
volatile int replay_go;			/* gdb sets it: `continue` runs on */
static unsigned int replay_parked;	/* CPUs parked so far */

/* Where each parked CPU was: its NMI's interrupted frame, or, for a CPU
 * that reached the stop itself while another was stopping the run, the
 * call to replay_stop() (gdb's qs-replay-frames prints them). */
struct replay_frame {
	u64 rip, rsp, rbp;
	int by_nmi;
	int parked;
};
DEFINE_PER_CPU(struct replay_frame, replay_frame);

static void replay_wait(void)
{
	while (!READ_ONCE(replay_go))
		cpu_relax();
}

static void park(u64 rip, u64 rsp, u64 rbp, int by_nmi)
{
	struct replay_frame *f = this_cpu_ptr(&replay_frame);

	if (f->parked)
		return;		/* an NMI that found this CPU parked already */
	f->rip = rip;
	f->rsp = rsp;
	f->rbp = rbp;
	f->by_nmi = by_nmi;
	f->parked = 1;
	__atomic_fetch_add(&replay_parked, 1, __ATOMIC_SEQ_CST);
	replay_wait();
}

/* nmi_handler(): true if this NMI was the stopping CPU's and has parked
 * this CPU until gdb let it go. Every NMI of every run makes the test. */
bool replay_nmi(struct pt_regs *regs)
{
	int stopper = READ_ONCE(replay_stop_cpu);

	if (stopper < 0 || stopper == (int)smp_processor_id() || READ_ONCE(replay_go))
		return false;
	park(regs->rip, regs->rsp, regs->rbp, 1);
	return true;
}

#define REPLAY_PARK_WAIT_NS	(100 * 1000 * 1000ULL)

__attribute__((noinline)) void replay_stop(u64 now_ns)
{
	unsigned long flags = local_irq_save();
	int me = smp_processor_id(), none = -1;
	unsigned int cpu, others = 0;
	u64 until;

	if (!__atomic_compare_exchange_n(&replay_stop_cpu, &none, me, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST)) {
		/* Another CPU is stopping the run (this one's NMI is on its
		 * way): park here. Or this is the stopping CPU's own printk
		 * below, or a tick after gdb let the run go: go on. */
		if (none != me && !READ_ONCE(replay_go))
			park((u64)__builtin_return_address(0), (u64)__builtin_frame_address(0), 0, 0);
		local_irq_restore(flags);
		return;
	}
	replay_stopped_ns = now_ns;
	for_each_online_cpu(cpu) {
		if (cpu != (unsigned int)me) {
			smp_send_nmi(cpu);
			others++;
		}
	}
	until = ktime_get_ns() + REPLAY_PARK_WAIT_NS;
	while (READ_ONCE(replay_parked) < others && ktime_get_ns() < until)
		cpu_relax();
	/* A parked CPU may hold the console's lock: write past it. */
	printk_bust_lock();
	printk("replay: stopped at %llu ns (virtual) on CPU %d, %u of %u other CPUs parked; "
	       "gdb attaches now\n", (unsigned long long)now_ns, me, READ_ONCE(replay_parked),
	       others);
	printk_unbust_lock();
	replay_wait();
	WRITE_ONCE(replay_stop_ns, ~0ULL);
	local_irq_restore(flags);
}

#define REPLAY_STOP_DIGITS 20

static int set_replay_stop(const char *v)
{
	u64 ns = 0;
	int i;

	if (!v)
		return -EINVAL;
	for (i = 0; i < REPLAY_STOP_DIGITS; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -EINVAL;
		ns = ns * 10 + (u64)(v[i] - '0');
	}
	if (v[i])
		return -EINVAL;
	replay_stop_ns = ns - 1;	/* all zeros: ~0, never; no branch on the value */
	return 0;
}
CMDLINE_PARAM("replay.stop", set_replay_stop,
	      "replay.stop=<20 digits>: stop the run (every CPU parked, for gdb) at the first tick "
	      "or printk at or after that many ns, plus 1 (make replay STOP=; all zeros: never)");
