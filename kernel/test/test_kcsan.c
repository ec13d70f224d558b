/*
 * KCSAN's own tests (ktest=kcsan_*, docs/kcsan.md): two CPUs race on one
 * variable in each of the ways that matter, with every access sampled,
 * and the report count says whether the detector spoke. The scenario
 * kcsan-smp2 checks each report's lines. Built only with CONFIG_KCSAN,
 * and instrumented like the rest of the kernel: these are the accesses
 * the runtime watches.
 */
#ifdef CONFIG_KCSAN
#include <kcsan.h>
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <kmalloc.h>
#include <barrier.h>
#include <arch/cpu.h>

/*
 * How long a pair races: until the first report, or this long. Each vCPU
 * is a host thread, and on a loaded host the other one may not run at
 * all during one stall, so a race is given many stalls of a generous
 * length; a silent pair races the short time.
 */
#define RACE_MS_REPORTED	5000
#define RACE_MS_SILENT		300
#define RACE_UDELAY		200

static long racy_plain;
static long racy_marked;
static long racy_mixed;
static long racy_assert;
static volatile int race_stop;

struct race {
	void (*access)(void);
};

static int race_thread(void *arg)
{
	struct race *r = arg;

	while (!race_stop)
		r->access();
	return 0;
}

/* Run other() on another CPU and mine() here, one access in skip
 * sampled, until a report (or for ms): the reports this made. */
static unsigned long race_sampled(struct ktest_ctx *t, void (*mine)(void), void (*other)(void),
				  unsigned long ms, unsigned long skip_now)
{
	unsigned long skip, delay, before = kcsan_reports();
	struct race r = { .access = other };
	unsigned int cpu = 0;
	struct task *p;
	u64 end;

	while (cpu == smp_processor_id() || !cpu_online(cpu))
		cpu++;
	kcsan_get_sampling(&skip, &delay);
	kcsan_set_sampling(skip_now, RACE_UDELAY);
	race_stop = 0;
	p = kthread_create_on_cpu(race_thread, &r, cpu, "kcsan_race");
	if (!KT_EXPECT(t, p, "no thread on CPU %u", cpu))
		return 0;
	wake_up_process(p);
	end = ktime_get_ns() + ms * 1000000ULL;
	while (ktime_get_ns() < end && kcsan_reports() == before)
		mine();
	race_stop = 1;
	KT_EXPECT(t, kthread_join_timeout(p, 10 * HZ, NULL), "the racing thread did not stop");
	kcsan_set_sampling(skip, delay);
	return kcsan_reports() - before;
}

/* Every access sampled. */
static unsigned long race(struct ktest_ctx *t, void (*mine)(void), void (*other)(void),
			  unsigned long ms)
{
	return race_sampled(t, mine, other, ms, 1);
}

static __noinline void plain_store(void)
{
	racy_plain = racy_plain + 1;
}

static __noinline void plain_load(void)
{
	long v = racy_plain;

	__asm__ __volatile__("" : : "r"(v));	/* the load happens */
}

KTEST(kcsan_plain_store_against_plain_load)
{
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs");
		return;
	}
	KT_EXPECT(t, race(t, plain_load, plain_store, RACE_MS_REPORTED) > 0,
		  "a plain store racing a plain load on another CPU was not reported");
}

static __noinline void marked_store(void)
{
	WRITE_ONCE(racy_marked, READ_ONCE(racy_marked) + 1);
}

static __noinline void marked_load(void)
{
	(void)READ_ONCE(racy_marked);
}

KTEST(kcsan_marked_against_marked_is_silent)
{
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs");
		return;
	}
	KT_EXPECT(t, race(t, marked_load, marked_store, RACE_MS_SILENT) == 0,
		  "WRITE_ONCE() against READ_ONCE() was reported: two marked accesses are no race");
}

static __noinline void mixed_plain_store(void)
{
	racy_mixed = racy_mixed + 1;
}

static __noinline void mixed_marked_load(void)
{
	(void)READ_ONCE(racy_mixed);
}

KTEST(kcsan_marked_load_against_plain_store)
{
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs");
		return;
	}
	KT_EXPECT(t, race(t, mixed_marked_load, mixed_plain_store, RACE_MS_REPORTED) > 0,
		  "a plain store racing READ_ONCE() on another CPU was not reported");
}

/* The design says only this function writes racy_assert; the other CPU
 * writes it too. */
static __noinline void sole_writer(void)
{
	ASSERT_EXCLUSIVE_WRITER(racy_assert);
	WRITE_ONCE(racy_assert, READ_ONCE(racy_assert) + 1);
}

static __noinline void intruding_writer(void)
{
	WRITE_ONCE(racy_assert, 0);
}

KTEST(kcsan_assert_exclusive_writer_violated)
{
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs");
		return;
	}
	KT_EXPECT(t, race(t, sole_writer, intruding_writer, RACE_MS_REPORTED) > 0,
		  "a second writer against ASSERT_EXCLUSIVE_WRITER() was not reported");
}

static long racy_intended;

static __noinline void intended_store(void)
{
	racy_intended = racy_intended + 1;
}

/* A statistics read that may be stale: the race is intended. */
static __noinline void intended_load(void)
{
	(void)data_race(racy_intended);
}

KTEST(kcsan_data_race_is_silent)
{
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs");
		return;
	}
	/* The store side is plain too: only the reader says the race is meant,
	 * so a report would name the store's watchpoint against... nothing:
	 * data_race() makes the reader's access invisible. */
	KT_EXPECT(t, race(t, intended_load, intended_store, RACE_MS_SILENT) == 0,
		  "a race marked with data_race() was reported");
}
/*
 * A just-allocated object published with a marked store that is not a
 * release (WRITE_ONCE(), as list_add() does): its initialising stores
 * may be seen after the pointer on a weaker machine. Random samples
 * almost never land on those stores, so the samples are made rare here
 * (one access in a million) and only kcsan.fresh's focus on the object's
 * initialisation can see the reader; kcsan.fresh=0 fails this test.
 */
#define FRESH_OBJS	4096
#define RARE_SKIP	1000000

struct fresh_obj {
	long a, b;
};

static struct fresh_obj *fresh_gp;
static struct fresh_obj *fresh_objs[FRESH_OBJS];	/* freed after the race: a reader may hold one */
static int fresh_nobjs;
static bool fresh_release;

static __noinline void fresh_publish(void)
{
	struct fresh_obj *p;

	if (fresh_nobjs == FRESH_OBJS || !(p = kmalloc(sizeof(*p)))) {
		cpu_relax();
		return;
	}
	p->a = fresh_nobjs;
	p->b = ~p->a;
	fresh_objs[fresh_nobjs++] = p;
	if (fresh_release)
		smp_store_release(&fresh_gp, p);
	else
		WRITE_ONCE(fresh_gp, p);
	smp_mb();	/* the stall, if any, comes here */
}

static __noinline void fresh_reader(void)
{
	struct fresh_obj *p = READ_ONCE(fresh_gp);

	if (p)
		(void)READ_ONCE(p->a);
}

static unsigned long fresh_race(struct ktest_ctx *t, bool release, unsigned long ms)
{
	unsigned long n;

	fresh_release = release;
	fresh_nobjs = 0;
	n = race_sampled(t, fresh_reader, fresh_publish, ms, RARE_SKIP);
	WRITE_ONCE(fresh_gp, NULL);
	for (int i = 0; i < fresh_nobjs; i++)
		kfree(fresh_objs[i]);
	return n;
}

KTEST(kcsan_fresh_object_published_without_release)
{
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs");
		return;
	}
	KT_EXPECT(t, fresh_race(t, false, RACE_MS_REPORTED) > 0,
		  "an object's initialising store published by WRITE_ONCE() was not reported");
}

KTEST(kcsan_fresh_object_published_with_release_is_silent)
{
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs");
		return;
	}
	KT_EXPECT(t, fresh_race(t, true, RACE_MS_SILENT) == 0,
		  "an object published with smp_store_release() was reported");
}

/*
 * What kcsan.fresh costs where it finds nothing: objects made, stored
 * and published with smp_store_release() on one CPU, never stalled, so
 * what is measured is the bookkeeping of their stores. Rounds with
 * kcsan.fresh=0 and =1 alternate in one boot, at the boot's sampling
 * (kcsan.skip), and the BENCH line gives ns per object each way:
 *
 *   ktest=bench_kcsan_fresh
 */
#define BENCH_OBJS	2000
#define BENCH_ROUNDS	6

struct bench_obj {
	long f[6];
};

static struct bench_obj *bench_gp;

static u64 bench_fresh_round(void)
{
	u64 t0 = ktime_get_ns();

	for (int i = 0; i < BENCH_OBJS; i++) {
		struct bench_obj *p = kmalloc(sizeof(*p));

		if (!p)
			break;
		for (int j = 0; j < 6; j++)
			p->f[j] = i + j;
		smp_store_release(&bench_gp, p);
		WRITE_ONCE(bench_gp, NULL);
		kfree(p);
	}
	return ktime_get_ns() - t0;
}

KTEST_MANUAL(bench_kcsan_fresh)
{
	unsigned long was = kcsan_set_fresh(0), before = kcsan_reports();
	u64 ns[2] = { 0, 0 };

	for (int r = 0; r < BENCH_ROUNDS; r++) {
		kcsan_set_fresh(r & 1);
		ns[r & 1] += bench_fresh_round();
	}
	kcsan_set_fresh(was);
	bench_json("{\"bench\":\"kcsan_fresh\",\"objects\":%d,\"ns_per_object_off\":%llu,"
		   "\"ns_per_object_on\":%llu,\"on_over_off_pct\":%llu}",
		   BENCH_OBJS * BENCH_ROUNDS / 2,
		   (unsigned long long)(ns[0] / (BENCH_OBJS * BENCH_ROUNDS / 2)),
		   (unsigned long long)(ns[1] / (BENCH_OBJS * BENCH_ROUNDS / 2)),
		   (unsigned long long)(ns[0] ? ns[1] * 100 / ns[0] : 0));
	KT_EXPECT(t, kcsan_reports() == before, "a report while one CPU published objects alone");
}
#endif
