/*
 * NMI handlers that RCU lets go (seed 001, "RCU Synchronizing with NMIs").
 *
 *   ktest=nmi_*                        the timer, the chain, the stress test
 *   ktest=nmi_handler_expect_failure   (busted variant) passes if the
 *                                      stress test catches it
 *
 * The stress test: the periodic NMI source (kernel/arch/x86/nmi_timer.c)
 * sends NMIs to every CPU while CPU 0 registers a handler, lets it run,
 * unregisters it and frees it, over and over; the other CPUs stay busy
 * in kernel code, so the NMIs interrupt them anywhere. Every other round
 * the handler is a module's (modules/modstress.c with nmi=1: its exit
 * unregisters, then the module is freed), otherwise a kmalloc'd probe
 * whose handler checks its own data for poison. Checked: no handler ever
 * reads poisoned data, every CPU took NMIs and ran handlers, and
 * unregister_nmi_handler() never found an NMI still running that the
 * grace period should have waited for (nmi_gp_violations(), its run-time
 * check). The busted variant, whose grace periods end at once, trips
 * that check (and would otherwise free a handler under a running NMI).
 */
#include <ktest.h>
#include <nmi.h>
#include <module.h>
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <panic.h>
#include <string.h>
#include <errno.h>
#include <rcupdate.h>
#include "module_test.h"

#define PROBE_MAGIC	0x4e4d4950524f4245UL	/* "NMIPROBE" */
#define PROBE_WORDS	32
#define PROBE_ROUNDS	512
#define PROBES		4

struct nmi_probe {
	struct nmi_handler h;
	unsigned long words[PROBE_WORDS];
};

static unsigned long probe_calls[CONFIG_NR_CPUS];
static unsigned long probe_poison;

static int probe_nmi(struct pt_regs *regs, void *arg)
{
	struct nmi_probe *p = arg;
	unsigned long bad = 0;

	for (unsigned int i = 0; i < PROBE_ROUNDS; i++)
		bad |= READ_ONCE(p->words[i % PROBE_WORDS]) ^ (PROBE_MAGIC + i % PROBE_WORDS);
	if (bad)
		__atomic_fetch_add(&probe_poison, 1, __ATOMIC_RELAXED);
	probe_calls[smp_processor_id()]++;
	return NMI_DONE;
}

KTEST(nmi_timer_reaches_every_cpu)
{
	unsigned long before[CONFIG_NR_CPUS];
	unsigned int cpu;
	int r;

	for_each_online_cpu(cpu)
		before[cpu] = nmi_count(cpu);
	r = nmi_timer_start(1000);
	KT_ASSERT(t, r == 0, "nmi_timer_start(1000): %d", r);
	KT_EXPECT(t, nmi_timer_start(500) == -EBUSY, "a second start: EBUSY");
	msleep(100);
	for_each_online_cpu(cpu)
		kt_info("cpu%u: %lu NMIs in 100 ms at 1000 Hz", cpu, nmi_count(cpu) - before[cpu]);
	/*
	 * Liveness, not a rate: every CPU must take NMIs, but a host that
	 * starves a vCPU may delay them, so allow up to 5 s for ten each.
	 */
	for_each_online_cpu(cpu) {
		for (int i = 0; i < 500 && nmi_count(cpu) - before[cpu] < 10; i++)
			msleep(10);
		KT_EXPECT(t, nmi_count(cpu) - before[cpu] >= 10, "cpu%u took %lu NMIs in 5 s", cpu,
			  nmi_count(cpu) - before[cpu]);
	}
	nmi_timer_stop();
	KT_EXPECT(t, nmi_timer_hz() == 0, "stopped");
	KT_EXPECT(t, nmi_timer_start(5) == -EINVAL && nmi_timer_start(20000) == -EINVAL,
		  "rates out of range refused");
}

static volatile bool busy_stop;

/* Keep a CPU in kernel code, passing quiescent states, for NMIs to hit. */
static int busy_fn(void *arg)
{
	while (!READ_ONCE(busy_stop)) {
		for (volatile int i = 0; i < 1000; i++)
			;
		cond_resched();
	}
	return 0;
}

static struct nmi_probe *probe_new(void)
{
	struct nmi_probe *p = kzalloc(sizeof(*p));

	if (!p)
		return NULL;
	for (unsigned int i = 0; i < PROBE_WORDS; i++)
		p->words[i] = PROBE_MAGIC + i;
	p->h.handler = probe_nmi;
	p->h.arg = p;
	p->h.name = "nmi-probe";
	return p;
}

struct nmi_stress_result {
	unsigned long rounds, module_rounds, violations, unregisters;
	bool ok;
};

/* Whether nmi_handler_stress's liveness checks can pass yet. */
static bool nmi_stress_moved(const struct nmi_stress_result *res)
{
	unsigned int cpu;

	if (res->rounds < 4)
		return false;
	for_each_online_cpu(cpu)
		if (!READ_ONCE(probe_calls[cpu]))
			return false;
	return true;
}

static void nmi_stress(struct ktest_ctx *t, struct nmi_stress_result *res)
{
	struct task *busy[CONFIG_NR_CPUS] = { 0 };
	struct nmi_probe *probes[PROBES] = { 0 };
	unsigned long v0 = nmi_gp_violations(), u0 = nmi_unregister_count();
	unsigned int cpu, me = smp_processor_id();
	char err[QS_MODULE_ERRLEN];
	const void *img = NULL;
	size_t size = 0;
	u64 end;
	int r;

	memset(res, 0, sizeof(*res));
	memset(probe_calls, 0, sizeof(probe_calls));
	probe_poison = 0;
	if (test_module_image("modstress", &img, &size))
		img = NULL;
	busy_stop = false;
	for_each_online_cpu(cpu)
		if (cpu != me && (busy[cpu] = kthread_create_on_cpu(busy_fn, NULL, cpu, "nmibusy/%u", cpu)))
			wake_up_process(busy[cpu]);
	r = nmi_timer_start(2000);
	KT_ASSERT(t, r == 0, "nmi_timer_start: %d", r);
	/*
	 * The duration, then on (a minute at most) until four rounds have run
	 * and every CPU has run a probe handler: each round waits for a grace
	 * period and a vCPU the host starves takes no NMI meanwhile, so those
	 * counts in a fixed time are rates, not liveness.
	 */
	end = ktime_get_ns() + module_stress_duration_s * 1000000000ULL;
	while (ktime_get_ns() < end ||
	       (!nmi_stress_moved(res) && ktime_get_ns() < end + 60000000000ULL)) {
		unsigned int slot = res->rounds % PROBES;

		if (img && res->rounds % 4 == 3) {
			r = load_module(img, size, "nmi", err, sizeof(err));
			KT_EXPECT(t, r == 0, "insmod modstress nmi: %s", err);
			udelay(500);
			while (unload_module("modstress", 0, NULL) == -EBUSY)
				cond_resched();
			res->module_rounds++;
		}
		/* A ring of PROBES handlers: the oldest goes, a new one comes,
		 * so NMIs always run several while one is unregistered. */
		if (probes[slot]) {
			unregister_nmi_handler(&probes[slot]->h);
			kfree(probes[slot]);	/* poisoned: an NMI still reading it would see that */
		}
		probes[slot] = probe_new();
		KT_ASSERT(t, probes[slot], "no memory");
		KT_EXPECT(t, register_nmi_handler(&probes[slot]->h) == 0, "register");
		KT_EXPECT(t, register_nmi_handler(&probes[slot]->h) == -EEXIST, "register twice: EEXIST");
		res->rounds++;
	}
	for (unsigned int i = 0; i < PROBES; i++)
		if (probes[i]) {
			unregister_nmi_handler(&probes[i]->h);
			kfree(probes[i]);
		}
	nmi_timer_stop();
	busy_stop = true;
	for_each_online_cpu(cpu)
		if (busy[cpu])
			kthread_join(busy[cpu]);
	res->violations = nmi_gp_violations() - v0;
	res->unregisters = nmi_unregister_count() - u0;
	kt_info("%s: %lu rounds (%lu with modstress.ko), %lu unregistrations, %lu found an NMI "
		"the grace period had not waited for; probe handlers read poison %lu times",
		rcu_variant_name(), res->rounds, res->module_rounds, res->unregisters,
		res->violations, probe_poison);
	for_each_online_cpu(cpu)
		kt_info("cpu%u: %lu probe handler calls", cpu, probe_calls[cpu]);
	res->ok = true;
}

KTEST(nmi_handler_stress)
{
	struct nmi_stress_result res;
	unsigned int cpu;

	nmi_stress(t, &res);
	if (!res.ok)
		return;
	KT_EXPECT(t, res.violations == 0, "%lu grace periods ended under a running NMI handler",
		  res.violations);
	KT_EXPECT(t, probe_poison == 0, "an NMI handler read freed memory %lu times", probe_poison);
	KT_EXPECT(t, res.rounds >= 4 && res.unregisters >= res.rounds,
		  "%lu rounds, %lu unregistrations", res.rounds, res.unregisters);
	for_each_online_cpu(cpu)
		KT_EXPECT(t, probe_calls[cpu] > 0, "cpu%u never ran a probe handler", cpu);
}

KTEST_MANUAL(nmi_handler_expect_failure)
{
	struct nmi_stress_result res;

	nmi_stress(t, &res);
	if (!res.ok)
		return;
	KT_EXPECT(t, res.violations > 0 || probe_poison > 0,
		  "%s let no NMI handler go early in %lu unregistrations; it should have",
		  rcu_variant_name(), res.unregisters);
}

/* A module whose exit() forgets its NMI handler: the unloader unregisters
 * it (and says so) before the module's memory goes, and NMIs go on. */
KTEST(nmi_handler_left_behind)
{
	unsigned long before = nmi_handlers_registered(), n0;
	char err[QS_MODULE_ERRLEN];
	const void *img;
	size_t size;
	int r;

	KT_ASSERT(t, !test_module_image("modstress", &img, &size), "no modstress.ko");
	r = load_module(img, size, "nmi forget", err, sizeof(err));
	KT_ASSERT(t, r == 0, "insmod modstress nmi forget: %s", err);
	KT_EXPECT(t, nmi_handlers_registered() == before + 1, "its handler is registered");
	KT_ASSERT(t, nmi_timer_start(1000) == 0, "nmi timer");
	msleep(20);
	KT_EXPECT(t, unload_module("modstress", 0, NULL) == 0, "rmmod modstress");
	KT_EXPECT(t, nmi_handlers_registered() == before, "its handler was unregistered for it");
	n0 = nmi_count(smp_processor_id());
	msleep(50);			/* NMIs on every CPU, the module's memory gone */
	/* Liveness: up to 5 s for one, should the host have held this vCPU. */
	for (int ms = 0; ms < 5000 && nmi_count(smp_processor_id()) == n0; ms += 10)
		msleep(10);
	nmi_timer_stop();
	KT_EXPECT(t, nmi_count(smp_processor_id()) > n0, "no NMI in 5 s after the unload");
}
