/*
 * Known cache-line behaviour for the coherence plugin's tests
 * (tests/test_c2c.py; tools/c2c/c2c.c). Each test runs two threads, on
 * CPUs 0 and 1, that take turns C2C_INCS times each (a turn word on a
 * line of its own), so that every increment follows the other CPU's and
 * the count of transfers does not depend on how the host interleaves
 * the virtual CPUs:
 *
 *   c2c_shared  both increment one counter: one transfer an increment
 *   c2c_own     each increments a counter on its own line: none
 *   c2c_false   each its own counter, the two on one line (false
 *               sharing): one transfer an increment, as c2c_shared
 *
 * The counts are the plugin's (the test boots with it and reads the
 * report); here each test checks only that the increments all happened.
 * Without the plugin they are quick and pass alike.
 */
#include <ktest.h>
#include <smp.h>
#include <sched.h>
#include <time.h>
#include <atomic.h>
#include <c2c_mark.h>
#include <arch/cpu.h>

#define C2C_INCS	1000

static atomic_t c2c_turn __cacheline_aligned;
static atomic_t c2c_shared_counter __cacheline_aligned;
static struct { atomic_t v; } __cacheline_aligned c2c_own_counters[2];
static struct { atomic_t a, b; } c2c_false_pair __cacheline_aligned;

struct c2c_arg {
	unsigned int me;
	atomic_t *target;
	unsigned int cell;
	const char *label;
	bool timed_out;
};

static int c2c_worker(void *p)
{
	struct c2c_arg *a = p;
	u64 t0 = ktime_get_ns();

	c2c_cell_begin(a->cell, a->label);
	for (unsigned int i = 0; i < C2C_INCS; i++) {
		/* my turn: the turn word's parity is my number */
		for (unsigned int spins = 0; ((unsigned int)atomic_read(&c2c_turn) & 1) != a->me; spins++) {
			cpu_relax();
			if (!(spins & 1023) && ktime_get_ns() - t0 > 20000000000ULL) {
				a->timed_out = true;
				goto out;
			}
		}
		atomic_inc(a->target);
		atomic_inc(&c2c_turn);
	}
out:
	c2c_cell_end(a->cell);
	return 0;
}

static void c2c_pair(struct ktest_ctx *t, const char *label, atomic_t *t0, atomic_t *t1)
{
	struct c2c_arg a[2] = {
		{ .me = 0, .target = t0, .label = label },
		{ .me = 1, .target = t1, .label = label },
	};
	struct task *p[2];
	unsigned int cell = c2c_enabled ? c2c_cell_id() : 0;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	atomic_set(&c2c_turn, 0);
	for (int i = 0; i < 2; i++) {
		a[i].cell = cell;
		p[i] = kthread_create_on_cpu(c2c_worker, &a[i], i, "c2c/%d", i);
		KT_ASSERT(t, p[i], "no memory for a thread");
	}
	for (int i = 0; i < 2; i++)
		wake_up_process(p[i]);
	for (int i = 0; i < 2; i++)
		kthread_join(p[i]);
	KT_EXPECT(t, !a[0].timed_out && !a[1].timed_out, "a thread waited 20 s for its turn");
	KT_EXPECT(t, atomic_read(&c2c_turn) == 2 * C2C_INCS, "%d turns of %d",
		  atomic_read(&c2c_turn), 2 * C2C_INCS);
	kt_info("c2c cell %u: %s, %d increments", cell, label, 2 * C2C_INCS);
}

KTEST(c2c_shared)
{
	atomic_set(&c2c_shared_counter, 0);
	c2c_pair(t, "shared", &c2c_shared_counter, &c2c_shared_counter);
	KT_EXPECT(t, atomic_read(&c2c_shared_counter) == 2 * C2C_INCS, "counter %d",
		  atomic_read(&c2c_shared_counter));
}

KTEST(c2c_own)
{
	c2c_pair(t, "own", &c2c_own_counters[0].v, &c2c_own_counters[1].v);
}

KTEST(c2c_false)
{
	c2c_pair(t, "false", &c2c_false_pair.a, &c2c_false_pair.b);
}
