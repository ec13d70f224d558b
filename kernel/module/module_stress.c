/*
 * The module unload race of seed 000 section 2.5, as a stress test.
 *
 *   ktest=module_unload_stress [module_stress.duration=3]
 *
 * CPU 0 loads modstress.ko (modules/modstress.c) and unloads it, over and
 * over. Every other CPU runs a reader that, inside rcu_read_lock(), takes
 * the module's published ops (kernel/module/modstress.h), calls into the
 * module, checks the answer, and symbolizes the address it called (which
 * walks the module list and reads the module's own symbol table); one call
 * in 16 instead takes a reference (try_module_get()) and calls outside the
 * section, which makes some unloads -EBUSY.
 *
 * An unload frees the module after list_del_rcu() and a grace period
 * (Figure 8), then poisons its memory and unmaps it. If the grace period
 * were too short, a reader still in the module would read poison (a
 * wrong sum: a panic naming "freed module memory") or fault on the
 * unmapped page (a panic at a module-area address): the busted variant
 * does one or the other within a few loads (tests/scenarios/
 * module-busted-smp4.scn expects that panic). On a real variant every
 * call returns the right sum, and the readers and the loader all make
 * progress; memory is back at its baseline after the last unload.
 */
#include <ktest.h>
#include <module.h>
#include <ksyms.h>
#include <rcupdate.h>
#include <sched.h>
#include <smp.h>
#include <string.h>
#include <errno.h>
#include <panic.h>
#include <time.h>
#include <cmdline.h>
#include "modstress.h"
#include "module_test.h"
#include <spinlock.h>
#include <rculist.h>

static struct modstress_ops __rcu *modstress_hook;	/* RCU-protected */
static DEFINE_SPINLOCK(modstress_lock);

int modstress_register(struct modstress_ops *ops)
{
	int err = 0;

	spin_lock(&modstress_lock);
	if (modstress_hook)
		err = -EBUSY;
	else
		rcu_assign_pointer(modstress_hook, ops);	/* ops initialised first */
	spin_unlock(&modstress_lock);
	return err;
}
EXPORT_SYMBOL(modstress_register);

void modstress_unregister(struct modstress_ops *ops)
{
	spin_lock(&modstress_lock);
	if (rcu_dereference_protected(modstress_hook, lockdep_is_held(&modstress_lock)) == ops)
		RCU_INIT_POINTER(modstress_hook, NULL);
	spin_unlock(&modstress_lock);
}
EXPORT_SYMBOL(modstress_unregister);

unsigned long module_stress_duration_s = 3;
CMDLINE_ULONG_TAGGED("module_stress.duration", duration, module_stress_duration_s, 1, 600,
	      "module_stress.duration=S: seconds of module_unload_stress and "
	      "nmi_handler_stress (default 3, 1..600)");

struct reader {
	struct task *task;
	unsigned long calls, ref_calls, symbolized, unlinked;
};

static struct reader readers[CONFIG_NR_CPUS];
static volatile bool stress_stop;

static void check_call(struct modstress_ops *ops, unsigned long seed)
{
	unsigned long got = ops->call(seed);

	if (got != modstress_expected(seed))
		panic("module-stress: a reader read freed module memory: call(%lu) = %#lx, "
		      "not %#lx", seed, got, modstress_expected(seed));
}

/*
 * The name of the function just called: stress_call in modstress, or
 * nothing if the unload has already taken the module off the list (its
 * exit() unpublished the ops just after this reader took them): the
 * reader may still run the code, but a new walk of the list no longer
 * finds it. Anything else is wrong.
 */
static bool check_symbol(unsigned long addr)
{
	char buf[128];

	ksym_format(addr, buf, sizeof(buf));
	if (strstr(buf, "stress_call+0x0/") && strstr(buf, " [modstress]"))
		return true;
	if (buf[0] != '0')
		panic("module-stress: %#lx symbolized as %s, not stress_call [modstress]", addr, buf);
	return false;
}

static int reader_fn(void *arg)
{
	struct reader *r = arg;

	for (unsigned long i = 1; !READ_ONCE(stress_stop); i++) {
		struct modstress_ops *ops;

		rcu_read_lock();
		ops = rcu_dereference(modstress_hook);
		if (ops && i % 16) {
			/* Figure 8's reader: no reference, only the section. */
			check_call(ops, i);
			if (i % 4 == 0) {
				if (check_symbol((unsigned long)ops->call))
					r->symbolized++;
				else
					r->unlinked++;
			}
			r->calls++;
			rcu_read_unlock();
		} else if (ops && try_module_get(ops->owner)) {
			/* A reference: it may leave the section and still call. */
			rcu_read_unlock();
			check_call(ops, i);
			module_put(ops->owner);
			r->ref_calls++;
		} else {
			rcu_read_unlock();
		}
		cond_resched();		/* a quiescent state, outside the section */
	}
	return 0;
}

static unsigned long reader_calls(unsigned int cpu)
{
	return READ_ONCE(readers[cpu].calls) + READ_ONCE(readers[cpu].ref_calls);
}

/*
 * After a load: until every reader has called into this instance (or 20
 * ms have passed), so that each unload races with readers that are using
 * the module, however the host schedules the virtual CPUs.
 */
static void wait_for_readers(unsigned int me)
{
	unsigned long seen[CONFIG_NR_CPUS];
	u64 end = ktime_get_ns() + 20000000;
	unsigned int cpu;
	bool all;

	for_each_online_cpu(cpu)
		seen[cpu] = reader_calls(cpu);
	do {
		udelay(50);
		all = true;
		for_each_online_cpu(cpu)
			if (cpu != me && reader_calls(cpu) == seen[cpu])
				all = false;
	} while (!all && ktime_get_ns() < end);
}

/* Whether the checks below can be judged: three loads, every reader in one. */
static bool module_stress_moved(unsigned int me, unsigned long loads)
{
	unsigned int cpu;

	if (loads < 3)
		return false;
	for_each_online_cpu(cpu)
		if (cpu != me && !READ_ONCE(readers[cpu].calls))
			return false;
	return true;
}

KTEST(module_unload_stress)
{
	struct test_module_baseline base;
	unsigned int cpu, me = smp_processor_id(), nreaders = 0;
	unsigned long loads = 0, busy = 0, calls = 0, ref_calls = 0, syms = 0, unlinked = 0;
	char err[QS_MODULE_ERRLEN];
	const void *img;
	size_t size;
	u64 end, gp_ns = 0;
	int r;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs a second CPU for a reader");
		return;
	}
	KT_ASSERT(t, !test_module_image("modstress", &img, &size), "no modstress.ko in the initrd");
	r = load_module(img, size, NULL, err, sizeof(err));	/* warm up, then the baseline */
	KT_ASSERT(t, r == 0, "insmod modstress: %s", err);
	KT_ASSERT(t, unload_module("modstress", 0, NULL) == 0, "rmmod modstress");
	test_module_baseline(&base);

	stress_stop = false;
	for_each_online_cpu(cpu) {
		if (cpu == me)
			continue;
		memset(&readers[cpu], 0, sizeof(readers[cpu]));
		readers[cpu].task = kthread_create_on_cpu(reader_fn, &readers[cpu], cpu, "modread/%u", cpu);
		KT_ASSERT(t, readers[cpu].task, "no reader thread");
		wake_up_process(readers[cpu].task);
		nreaders++;
	}
	/*
	 * The duration, then on (a minute at most) until the checks below
	 * can pass: each unload waits for a grace period and each reader's
	 * vCPU may be starved by the host, so how many loads fit, and
	 * whether every reader found the module, in a fixed time is a rate.
	 */
	end = ktime_get_ns() + module_stress_duration_s * 1000000000ULL;
	while (ktime_get_ns() < end ||
	       (!module_stress_moved(me, loads) && ktime_get_ns() < end + 60000000000ULL)) {
		struct module_unload_times times;

		r = load_module(img, size, NULL, err, sizeof(err));
		if (r) {
			KT_EXPECT(t, 0, "insmod modstress: %d %s", r, err);
			break;
		}
		loads++;
		wait_for_readers(me);	/* every reader is in it or has been */
		while ((r = unload_module("modstress", 0, &times)) == -EBUSY) {
			busy++;		/* a reader holds a reference */
			cond_resched();
		}
		KT_EXPECT(t, r == 0, "rmmod modstress: %d", r);
		gp_ns += times.gp_ns;
	}
	stress_stop = true;
	for_each_online_cpu(cpu) {
		if (cpu == me)
			continue;
		kthread_join(readers[cpu].task);
		calls += readers[cpu].calls;
		ref_calls += readers[cpu].ref_calls;
		syms += readers[cpu].symbolized;
		unlinked += readers[cpu].unlinked;
		KT_EXPECT(t, readers[cpu].calls > 0, "the reader on cpu%u never found the module", cpu);
	}
	kt_info("%s: %lu loads and unloads (%lu -EBUSY retries, mean grace period %lu us); "
		"%u readers: %lu calls under rcu_read_lock, %lu holding a reference, %lu symbolized "
		"(%lu after the unlink)", rcu_variant_name(), loads, busy,
		loads ? (unsigned long)(gp_ns / loads / 1000) : 0, nreaders, calls, ref_calls, syms,
		unlinked);
	KT_EXPECT(t, loads >= 3, "only %lu loads in %lu s and a minute", loads, module_stress_duration_s);
	test_module_same(t, &base, "the load/unload loop");
}
