/*
 * nmiprof: a sampling profiler driven by NMIs, in the manner of oprofile's
 * NMI timer mode (seed 001, "RCU Synchronizing with NMIs").
 *
 *	insmod /lib/modules/nmiprof.ko
 *	nmitop -f 1000 -- modctl hello spin 500
 *
 * START(hz) registers an NMI handler and starts the periodic NMI source
 * (include/nmi.h): every CPU takes hz NMIs a second wherever it is,
 * interrupts-off regions and the timer tick included. The handler records
 * the interrupted RIP in this CPU's histogram: an open-addressing hash
 * table of (rip, count), written only by this CPU's NMIs, so it needs no
 * lock (an NMI cannot take one) and no atomic instruction. Samples from
 * user mode and from the idle loop are counted apart.
 *
 * STOP stops the NMIs and unregisters the handler, which waits for a grace
 * period (seed 001 Listing 4): after it, no CPU is still inside the
 * handler, so the histograms may be read, reset or freed, and the module
 * unloaded. READ (process context) folds every CPU's RIPs into functions
 * with ksym_resolve(), module functions included ("hello_spin [hello]"),
 * and returns the most sampled first (struct nmiprof_report).
 */
#include <module.h>
#include <nmi.h>
#include <ksyms.h>
#include <kmalloc.h>
#include <mutex.h>
#include <smp.h>
#include <percpu.h>
#include <string.h>
#include <errno.h>
#include <arch/irq.h>

#define SLOTS		1024		/* per CPU, a power of two */
#define PROBES		8		/* slots tried before a sample is lost */

struct prof_slot {
	unsigned long rip, count;
};

struct prof_cpu {
	unsigned long samples, user, idle, lost;
	struct prof_slot slot[SLOTS];
};

static struct prof_cpu *prof[CONFIG_NR_CPUS];	/* set before the handler is registered */
static unsigned int prof_hz;
static bool running;
static struct mutex prof_mutex;

static unsigned int slot_hash(unsigned long rip)
{
	return (unsigned int)((rip * 0x9e3779b97f4a7c15UL) >> 54) & (SLOTS - 1);
}

/* NMI context: this CPU's table only, no lock, nothing that can fault. */
static int nmiprof_nmi(struct pt_regs *regs, void *arg)
{
	struct prof_cpu *pc = prof[smp_processor_id()];
	unsigned long rip = regs->rip;
	unsigned int h;

	if (!pc || !nmi_timer_hz())
		return NMI_DONE;
	pc->samples++;
	if (user_mode(regs)) {
		pc->user++;
		return NMI_HANDLED;
	}
	if (READ_ONCE(cpu_local()->in_idle))
		pc->idle++;
	h = slot_hash(rip);
	for (int i = 0; i < PROBES; i++, h = (h + 1) & (SLOTS - 1)) {
		struct prof_slot *s = &pc->slot[h];

		if (s->rip == rip || !s->rip) {
			s->rip = rip;
			s->count++;
			return NMI_HANDLED;
		}
	}
	pc->lost++;
	return NMI_HANDLED;
}

static struct nmi_handler nmiprof_handler = {
	.handler = nmiprof_nmi,
	.name = "nmiprof",
};

static void free_tables(void)
{
	for (unsigned int cpu = 0; cpu < CONFIG_NR_CPUS; cpu++) {
		kfree(prof[cpu]);
		prof[cpu] = NULL;
	}
}

static long prof_start(unsigned int hz)
{
	unsigned int cpu;
	long err;

	if (running)
		return -EBUSY;
	free_tables();
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (!(prof[cpu] = kzalloc(sizeof(struct prof_cpu)))) {
			free_tables();
			return -ENOMEM;
		}
	if ((err = register_nmi_handler(&nmiprof_handler)))
		return err;
	if ((err = nmi_timer_start(hz))) {
		unregister_nmi_handler(&nmiprof_handler);
		return err;
	}
	prof_hz = hz;
	running = true;
	return 0;
}

static void prof_stop(void)
{
	if (!running)
		return;
	nmi_timer_stop();
	/* Waits for a grace period: no CPU is in nmiprof_nmi() after it. */
	unregister_nmi_handler(&nmiprof_handler);
	running = false;
}

/* Fold one RIP into the per-function totals (fn[], n used of max). */
static void fold(struct nmiprof_entry *fn, unsigned int *n, unsigned int max,
		 unsigned long rip, unsigned long count, unsigned long *unknown)
{
	struct ksym_info info;

	if (!ksym_resolve(rip, &info)) {
		*unknown += count;
		return;
	}
	for (unsigned int i = 0; i < *n; i++)
		if (fn[i].addr == info.start) {
			fn[i].samples += count;
			return;
		}
	if (*n == max) {
		*unknown += count;
		return;
	}
	fn[*n].addr = info.start;
	fn[*n].samples = count;
	if (info.module[0])
		snprintf(fn[*n].name, sizeof(fn[*n].name), "%s [%s]", info.name, info.module);
	else
		strlcpy(fn[*n].name, info.name, sizeof(fn[*n].name));
	(*n)++;
}

#define MAX_FUNCTIONS	512

static long prof_read(void __user *buf, size_t len)
{
	struct nmiprof_report *r;
	struct nmiprof_entry *fn;
	unsigned int n = 0;
	long err;

	if (len != sizeof(*r))
		return -EINVAL;
	if (running)
		return -EBUSY;		/* the handler may be writing: stop first */
	r = kzalloc(sizeof(*r));
	fn = kzalloc(MAX_FUNCTIONS * sizeof(*fn));
	err = -ENOMEM;
	if (!r || !fn)
		goto out;
	r->hz = prof_hz;
	r->ncpus = nr_cpu_ids;
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct prof_cpu *pc = prof[cpu];

		if (!pc)
			continue;
		r->samples += pc->samples;
		r->user += pc->user;
		r->idle += pc->idle;
		r->lost += pc->lost;
		if (cpu < ARRAY_SIZE(r->cpu_samples))
			r->cpu_samples[cpu] = pc->samples;
		for (unsigned int i = 0; i < SLOTS; i++)
			if (pc->slot[i].count)
				fold(fn, &n, MAX_FUNCTIONS, pc->slot[i].rip, pc->slot[i].count,
				     &r->unknown);
	}
	/* The most sampled first: selection of the top entries. */
	for (unsigned int k = 0; k < n && k < ARRAY_SIZE(r->entries); k++) {
		unsigned int best = k;

		for (unsigned int i = k + 1; i < n; i++)
			if (fn[i].samples > fn[best].samples)
				best = i;
		r->entries[k] = fn[best];
		fn[best] = fn[k];
		r->nentries++;
	}
	err = copy_to_user(buf, r, sizeof(*r));
out:
	kfree(r);
	kfree(fn);
	return err;
}

static long nmiprof_ctl(unsigned int cmd, unsigned long arg, void __user *buf, size_t len)
{
	long ret = 0;

	mutex_lock(&prof_mutex);
	switch (cmd) {
	case NMIPROF_CTL_START:
		ret = prof_start(arg);
		break;
	case NMIPROF_CTL_STOP:
		prof_stop();
		break;
	case NMIPROF_CTL_RESET:
		if (running)
			ret = -EBUSY;
		else
			free_tables();
		break;
	case NMIPROF_CTL_READ:
		ret = prof_read(buf, len);
		break;
	default:
		ret = -EINVAL;
	}
	mutex_unlock(&prof_mutex);
	return ret;
}

static int nmiprof_init(void)
{
	mutex_init(&prof_mutex, "nmiprof");
	return 0;
}

static void nmiprof_exit(void)
{
	prof_stop();
	free_tables();
}

module_init(nmiprof_init);
module_exit(nmiprof_exit);
module_ctl(nmiprof_ctl);
MODULE_DESCRIPTION("sampling profiler: NMIs on every CPU, per-CPU RIP histograms");
MODULE_LICENSE("GPL");
