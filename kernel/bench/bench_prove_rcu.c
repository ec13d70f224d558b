/*
 * What CONFIG_PROVE_RCU costs a reader: an rcu_read_lock(),
 * rcu_dereference(), rcu_read_unlock() round trip, against a plain load
 * through the same pointer (docs/rcu/checking.md). Boot once with the
 * option (every configs/rcu_*_defconfig) and once without (defconfig) to
 * compare; printed, never asserted.
 */
#include <ktest.h>
#include <rcupdate.h>
#include <preempt.h>
#include <arch/cpu.h>
#include <arch/irq.h>

#define READS	100000

struct bench_item {
	int val;
};

static struct bench_item bench_item = { .val = 1 };
static struct bench_item __rcu *bench_gp = RCU_INITIALIZER(&bench_item);

static u64 __noinline time_plain(int *sum)
{
	u64 t0 = rdtsc_ordered();

	for (int i = 0; i < READS; i++) {
		*sum += rcu_dereference_raw(bench_gp)->val;	/* the plain load, unchecked */
		barrier();
	}
	return rdtsc_ordered() - t0;
}

static u64 __noinline time_reader(int *sum)
{
	u64 t0 = rdtsc_ordered();

	for (int i = 0; i < READS; i++) {
		rcu_read_lock();
		*sum += rcu_dereference(bench_gp)->val;
		rcu_read_unlock();
	}
	return rdtsc_ordered() - t0;
}

KTEST(bench_prove_rcu_read_side)
{
	u64 plain = ~0ULL, reader = ~0ULL;
	int sum = 0;
	long d;

	for (int round = 0; round < 5; round++) {	/* best of five: noise only adds */
		plain = MIN(plain, time_plain(&sum));
		reader = MIN(reader, time_reader(&sum));
	}
	d = ((long)reader - (long)plain) * 100 / READS;	/* centi-cycles per read */
	if (d < 0)
		d = 0;
#ifdef CONFIG_PROVE_RCU
	const bool on = true;
#else
	const bool on = false;
#endif
	bench_json("{\"bench\":\"prove_rcu_read_side\",\"variant\":\"%s\",\"prove_rcu\":%s,"
		   "\"reads\":%d,\"plain_cycles_x100\":%lu,\"reader_cycles_x100\":%lu,"
		   "\"added_cycles_x100\":%ld}",
		   rcu_variant_name(), on ? "true" : "false", READS,
		   (unsigned long)(plain * 100 / READS), (unsigned long)(reader * 100 / READS), d);
	kt_info("PROVE_RCU %s: a read-side round trip adds %ld.%02ld cycles to a plain load",
		on ? "on" : "off", d / 100, d % 100);
	KT_EXPECT(t, sum > 0, "sum %d", sum);
}
