/*
 * ipc-stress: the ID table of util.c under RCU, with kmalloc poisoning on,
 * in the manner of rcutorture (docs/ipc.md, "The stress test"):
 *
 *   ktest=ipc_rcu_stress                 passes if no reader saw freed or
 *                                        reused memory, and everything moved
 *   ktest=ipc_rcu_stress_expect_failure  passes if the readers caught freed
 *                                        or reused memory (for the busted
 *                                        RCU variant; manual only)
 *
 * What runs, for ipc_stress.duration seconds (default 2):
 *
 *   updaters   STRESS_UPDATERS, each working STRESS_TABLES_EACH tables
 *              in turn (each its own struct ipc_ids starting with one
 *              slot): fill the table with
 *              objects through ipc_addid(), which grows it with
 *              grow_ary() (Figure 13) from 1 slot to STRESS_SLOTS; then
 *              empty it in random order, each removal ipc_lock() +
 *              ipc_rmid() (Figure 10) + ipc_unlock() + ipc_rcu_free()
 *              (Figure 12); then put the empty table back to one slot
 *              (stress_reset(), below) so that it grows again once a
 *              grace period has passed. Over and over.
 *   readers    one per CPU: Figure 11 with the window held open. Under
 *              rcu_read_lock(): ipc_entries() (the bounds check, smp_rmb()
 *              and the load of `entries`, as ipc_lock() does it), a delay,
 *              the load of the slot, a delay, a look at the object's fields,
 *              a longer delay (up to ipc_stress.delay us), a second look,
 *              and only then the rest of Figure 11: the object's lock and
 *              the deleted flag, and a third look under the lock. The
 *              delays are what make a grace period that ends too early
 *              visible: ipc_rcu_free() runs while a reader sits in one.
 *
 * What a reader checks: the array it loaded holds its slot (the size it
 * checked belongs to an array at least that large); a slot read from a
 * freed array reads as poison
 * (0x6b6b...: the array was freed under it); an object's magic reads as
 * poison (freed) or as anything but STRESS_MAGIC or the 0 its remover
 * writes under the lock (freed and handed out again); its sequence number
 * changes between looks, or under the lock its id does not name the slot
 * it was found in (reused). None of these can happen while RCU holds. A
 * reader that sees one records it, stops the run, and does not touch the
 * object again (so the busted run ends with a report, not a corrupted
 * heap). An object it locks that is not deleted must still be in its slot.
 *
 * Liveness: reads found objects, the tables grew and were emptied, and
 * grace periods completed. At the end every object is removed, rcu_barrier()
 * runs, and kmalloc's live objects and bytes must be back at the baseline,
 * with no ipc_rcu_free() left pending.
 *
 * The objects are padded to a kmalloc class (2048 bytes) that none of the
 * tables' arrays use (at most 64 slots: 576 bytes), so that freed memory a
 * reader looks at is never an array of the same class handed out again.
 */
#include "util.h"
#include <ktest.h>
#include <cmdline.h>
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <atomic.h>
#include <string.h>
#include <printk.h>
#include <stdarg.h>
#include <panic.h>

#define STRESS_UPDATERS		2
#define STRESS_TABLES_EACH	6	/* tables an updater works in turn */
#define STRESS_TABLES		(STRESS_UPDATERS * STRESS_TABLES_EACH)
#define STRESS_SLOTS		64
#define STRESS_MAGIC		0x5350495353455453UL	/* "STRESSIPC" */
#define STRESS_POISON		0x6b6b6b6b6b6b6b6bUL
#define STRESS_MAX_REPORTS	10

static unsigned long stress_duration_s = 2;
static unsigned long stress_delay_us = 100;
CMDLINE_ULONG("ipc_stress.duration", stress_duration_s, 1, 3600,
	      "ipc_stress.duration=S: the ipc RCU stress runs S seconds (default 2, 1..3600)");
CMDLINE_ULONG("ipc_stress.delay", stress_delay_us, 1, 100000,
	      "ipc_stress.delay=US: longest delay inside a reader (default 100, 1..100000)");

struct stress_obj {
	struct kern_ipc_perm perm;	/* first, as in every IPC object */
	unsigned long magic;		/* STRESS_MAGIC while in a table */
	int id;				/* the id ipc_addid() gave it */
	unsigned long locked_reads;	/* readers that locked it (under perm.lock) */
	char pad[1800];			/* the 2048-byte class (see above) */
};

struct stress_table {
	struct ipc_ids ids;
	int nobjs;
	struct stress_obj *objs[STRESS_SLOTS];	/* the updater's own list */
	unsigned long reset_cookie;		/* the grace period after a reset */
	bool reset_pending;			/* ... not yet waited for */
};

static struct stress_table stress_tables[STRESS_TABLES];
static int stress_turn[STRESS_UPDATERS];	/* the table each updater works now */
static volatile bool stress_stopping;

static struct {
	atomic_long_t reads, found, locked, deleted_seen;
	atomic_long_t added, removed, grows, resets;
	atomic_long_t freed_array, freed_obj, reused, short_array;	/* errors */
	atomic_t reports;
} st;

static unsigned long stress_errors(void)
{
	return atomic_long_read(&st.freed_array) + atomic_long_read(&st.freed_obj) +
	       atomic_long_read(&st.reused) + atomic_long_read(&st.short_array);
}

static __printf(2, 3) void stress_error(atomic_long_t *kind, const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	atomic_long_inc(kind);
	WRITE_ONCE(stress_stopping, true);
	if (atomic_inc_return(&st.reports) > STRESS_MAX_REPORTS)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk("ipc-stress: ERROR: %s\n", buf);
}

static unsigned long stress_random(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---------------------------------------------------------------- updaters */

static void stress_add(struct stress_table *t, unsigned long *rnd)
{
	struct stress_obj *o = ipc_rcu_alloc(sizeof(*o));
	int size_before = t->ids.size, lid;

	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->perm.key = (int)stress_random(rnd);
	o->perm.mode = 0600;
	o->magic = STRESS_MAGIC;
	lid = ipc_addid(&t->ids, &o->perm, STRESS_SLOTS);
	if (lid < 0) {
		ipc_rcu_free(o, sizeof(*o));
		return;
	}
	/* Marked: published already, and read lock-free by stress_look(). */
	WRITE_ONCE(o->id, ipc_buildid(&t->ids, lid, o->perm.seq));
	ipc_unlock(&t->ids, &o->perm);
	t->objs[t->nobjs++] = o;
	atomic_long_inc(&st.added);
	if (t->ids.size != size_before)
		atomic_long_inc(&st.grows);
}

static void stress_remove(struct stress_table *t, int i)
{
	struct stress_obj *o = t->objs[i];
	struct kern_ipc_perm *p = ipc_lock(&t->ids, o->id);

	if (p != &o->perm)
		panic("ipc-stress: ipc_lock(%d) gave %p, not its object %p", o->id, p, o);
	ipc_rmid(&t->ids, o->id);
	WRITE_ONCE(o->magic, 0);	/* under the lock: a locked reader sees it; others read it too */
	ipc_unlock(&t->ids, p);
	ipc_rcu_free(o, sizeof(*o));
	t->objs[i] = t->objs[--t->nobjs];
	atomic_long_inc(&st.removed);
}

/*
 * Back to one slot, for the next fill to grow again. Not something a
 * real table does (2.5's never shrank), and shrinking breaks what Figure
 * 11 relies on: a reader that checked its slot against `size` and then
 * loads `entries` must get an array at least that large. Every array
 * grow_ary() publishes is at least the size it publishes with it, so
 * growing alone keeps that true; after a shrink, a reader that read the
 * old size (64) could load the 2-slot array of the next fill and read
 * past its end. So: the new array keeps the old capacity (all NULL)
 * while `size` says 1, with Figure 13's two barriers, and the table may
 * not grow again until a grace period has passed (reset_cookie, waited
 * for in stress_updater()): every reader that could hold the old size
 * has left its rcu_read_lock() by then. The table is empty and ids.sem
 * held.
 */
static void stress_reset(struct stress_table *t)
{
	struct ipc_ids *ids = &t->ids;
	int cap = ids->size;
	struct ipc_id *new = ipc_rcu_alloc(sizeof(struct ipc_id) * cap), *old = ids->entries;

	if (!new)
		return;
	memset(new, 0, sizeof(struct ipc_id) * cap);
	smp_wmb();
	WRITE_ONCE(ids->entries, new);
	smp_wmb();
	WRITE_ONCE(ids->size, 1);
	t->reset_cookie = get_state_synchronize_rcu();
	t->reset_pending = true;
	ipc_rcu_free(old, sizeof(struct ipc_id) * cap);
	atomic_long_inc(&st.resets);
}

/*
 * One updater works STRESS_TABLES_EACH tables in turn, a fill and an
 * empty each, so that a table's reset grace period passes while the
 * others are worked and the wait below seldom sleeps.
 */
static int stress_updater(void *arg)
{
	unsigned long u = (unsigned long)arg, rnd = 0x1234567 + u, n = 0;
	int turn = 0;

	while (!READ_ONCE(stress_stopping)) {
		struct stress_table *t = &stress_tables[u + turn * STRESS_UPDATERS];

		/* Not past one slot again until the reset's grace period ends. */
		if (t->reset_pending && t->nobjs >= 1) {
			cond_synchronize_rcu(t->reset_cookie);
			t->reset_pending = false;
		}
		down(&t->ids.sem);
		if (t->nobjs < STRESS_SLOTS) {
			stress_add(t, &rnd);
		} else {
			while (t->nobjs && !READ_ONCE(stress_stopping)) {
				stress_remove(t, stress_random(&rnd) % t->nobjs);
				if (!(++n % 16)) {
					up(&t->ids.sem);
					cond_resched();
					down(&t->ids.sem);
				}
			}
			if (!t->nobjs) {
				stress_reset(t);
				turn = (turn + 1) % STRESS_TABLES_EACH;
				WRITE_ONCE(stress_turn[u], turn);
			}
		}
		up(&t->ids.sem);
		if (!(++n % 64))
			yield();
		else
			cond_resched();
	}
	return 0;
}

/* ---------------------------------------------------------------- readers */

static void stress_delay(unsigned long *rnd, unsigned long max_us)
{
	udelay(1 + stress_random(rnd) % max_us);
}

/*
 * A look at the object's fields: false (and the run stopped) if it is
 * wrong. Without the lock only what ipc_addid() set before publishing the
 * object is stable (magic, perm.seq); under it, the id too.
 */
static bool stress_look(struct stress_obj *o, int lid, int *seq, bool locked, const char *when)
{
	unsigned long magic = READ_ONCE(o->magic);
	int now = READ_ONCE(o->perm.seq), id = READ_ONCE(o->id);

	if (magic == STRESS_POISON) {
		stress_error(&st.freed_obj, "cpu%u: object %p (slot %d) reads as kmalloc poison "
			     "%s: freed inside the reader's rcu_read_lock()",
			     smp_processor_id(), o, lid, when);
		return false;
	}
	if (magic != STRESS_MAGIC && magic != 0) {
		stress_error(&st.reused, "cpu%u: object %p (slot %d) has magic %#lx %s: "
			     "freed and handed out again", smp_processor_id(), o, lid, magic, when);
		return false;
	}
	if (*seq == -1)
		*seq = now;
	if (now != *seq || (locked && id != SEQ_MULTIPLIER * now + lid)) {
		stress_error(&st.reused, "cpu%u: object %p in slot %d: sequence number %d, now %d, "
			     "id %d %s: freed and reused", smp_processor_id(), o, lid, *seq, now,
			     id, when);
		return false;
	}
	return true;
}

/* Figure 11, with the window between its steps held open. */
static void stress_one_read(unsigned long *rnd)
{
	unsigned long r = stress_random(rnd), u = r % STRESS_UPDATERS;
	/* Mostly a table being worked now (the others sit empty), sometimes any. */
	struct stress_table *t = &stress_tables[(r >> 8) % 8 ?
						u + READ_ONCE(stress_turn[u]) * STRESS_UPDATERS :
						(r >> 16) % STRESS_TABLES];
	int lid = stress_random(rnd) % STRESS_SLOTS, seq = -1;
	struct ipc_id *entries;
	struct stress_obj *o;
	unsigned long cap;

	atomic_long_inc(&st.reads);
	rcu_read_lock();
	entries = ipc_entries(&t->ids, lid);
	if (!entries)
		goto out;
	cap = READ_ONCE(((struct ipc_rcu_kmalloc *)entries - 1)->size);
	if (cap != STRESS_POISON && (lid + 1) * sizeof(struct ipc_id) > cap) {
		stress_error(&st.short_array, "cpu%u: slot %d is beyond array %p of %lu slots: "
			     "the size the reader checked was not this array's",
			     smp_processor_id(), lid, entries, cap / sizeof(struct ipc_id));
		goto out;
	}
	stress_delay(rnd, 10);
	o = (struct stress_obj *)rcu_dereference(entries[lid].p);
	if ((unsigned long)o == STRESS_POISON) {
		stress_error(&st.freed_array, "cpu%u: slot %d of array %p reads as kmalloc poison: "
			     "the array was freed inside the reader's rcu_read_lock()",
			     smp_processor_id(), lid, entries);
		goto out;
	}
	if (!o)
		goto out;
	atomic_long_inc(&st.found);
	if (!stress_look(o, lid, &seq, false, "at first look"))
		goto out;
	stress_delay(rnd, stress_delay_us);
	if (!stress_look(o, lid, &seq, false, "after the delay"))
		goto out;
	/* Figure 11 lines 22-28. */
	spin_lock(&o->perm.lock);
	if (o->perm.deleted) {
		atomic_long_inc(&st.deleted_seen);
	} else {
		if (stress_look(o, lid, &seq, true, "under its lock") && o->magic != STRESS_MAGIC)
			stress_error(&st.reused, "cpu%u: object %p not deleted but removed",
				     smp_processor_id(), o);
		o->locked_reads++;
		atomic_long_inc(&st.locked);
	}
	spin_unlock(&o->perm.lock);
out:
	rcu_read_unlock();
}

static int stress_reader(void *arg)
{
	unsigned long rnd = 0x9e3779b97f4a7c15UL * (2 + (unsigned long)arg), x;

	while (!READ_ONCE(stress_stopping)) {
		stress_one_read(&rnd);
		x = stress_random(&rnd);
		if (!(x % 256))
			schedule_timeout_uninterruptible(1);	/* idle: a quiescent state */
		else if (!(x % 8))
			yield();				/* a voluntary switch */
		else
			cond_resched();
	}
	return 0;
}

/* ---------------------------------------------------------------- the run */

static void stress_teardown(void)
{
	for (int i = 0; i < STRESS_TABLES; i++) {
		struct stress_table *t = &stress_tables[i];

		down(&t->ids.sem);
		while (t->nobjs)
			stress_remove(t, t->nobjs - 1);
		up(&t->ids.sem);
		ipc_destroy_ids(&t->ids);
	}
}

static bool stress_moved(void)
{
	return atomic_long_read(&st.found) > 0 && atomic_long_read(&st.locked) > 0 &&
	       atomic_long_read(&st.grows) > 0 && atomic_long_read(&st.resets) > 0 &&
	       atomic_long_read(&st.removed) > 0;
}

/* Run the stress; true if no reader caught anything. why: the verdict's reasons. */
static bool ipc_stress_run(struct ktest_ctx *t, char *why, size_t len)
{
	struct task *tasks[CONFIG_NR_CPUS + STRESS_UPDATERS];
	unsigned int ncpus = num_online_cpus(), n = 0, cpu;
	struct kmalloc_stats k0, k1;
	unsigned long gp0 = rcu_gp_completed(), ms = 0;
	bool ok;

	memset(&st, 0, sizeof(st));
	stress_stopping = false;
	rcu_barrier();
	kmalloc_get_stats(&k0);
	for (int i = 0; i < STRESS_TABLES; i++) {
		ipc_init_ids(&stress_tables[i].ids, STRESS_SLOTS, 1, "ipc_stress.ary");
		stress_tables[i].nobjs = 0;
		stress_tables[i].reset_pending = false;
	}
	memset(stress_turn, 0, sizeof(stress_turn));
	for_each_online_cpu(cpu) {
		tasks[n] = kthread_create_on_cpu(stress_reader, (void *)(unsigned long)cpu, cpu,
						 "ipc_stress_rd%u", cpu);
		if (tasks[n])
			wake_up_process(tasks[n++]);
	}
	for (unsigned long i = 0; i < STRESS_UPDATERS; i++) {
		tasks[n] = kthread_create_on_cpu(stress_updater, (void *)i, (i + 1) % ncpus,
						 "ipc_stress_up%lu", i);
		if (tasks[n])
			wake_up_process(tasks[n++]);
	}
	/*
	 * The duration by the clock, then on (a minute at most) until every
	 * kind of operation the liveness checks ask for has happened: a host
	 * that starves an updater's vCPU can hold it off for the whole
	 * duration, and a count in a fixed time is a rate, not liveness.
	 */
	for (u64 t0 = ktime_get_ns(); !READ_ONCE(stress_stopping); msleep(50)) {
		ms = (ktime_get_ns() - t0) / 1000000;
		if (ms >= stress_duration_s * 1000 &&
		    (stress_moved() || ms >= stress_duration_s * 1000 + 60000))
			break;
	}
	WRITE_ONCE(stress_stopping, true);
	for (unsigned int i = 0; i < n; i++) {
		int code;

		if (!kthread_join_timeout(tasks[i], 30 * HZ, &code))
			KT_EXPECT(t, false, "ipc-stress: thread %u did not stop", i);
	}
	stress_teardown();
	rcu_barrier();
	kmalloc_get_stats(&k1);

	printk("ipc-stress: %lu ms on %u CPUs, rcu=%s: reads %ld (found %ld, locked %ld, "
	       "deleted under the lock %ld); objects added %ld removed %ld; grow_ary %ld, "
	       "resets %ld; grace periods %lu\n", ms, ncpus, rcu_variant_name(),
	       atomic_long_read(&st.reads), atomic_long_read(&st.found),
	       atomic_long_read(&st.locked), atomic_long_read(&st.deleted_seen),
	       atomic_long_read(&st.added), atomic_long_read(&st.removed),
	       atomic_long_read(&st.grows), atomic_long_read(&st.resets),
	       rcu_gp_completed() - gp0);
	snprintf(why, len, "freed_array=%ld freed=%ld reused=%ld short_array=%ld",
		 atomic_long_read(&st.freed_array), atomic_long_read(&st.freed_obj),
		 atomic_long_read(&st.reused), atomic_long_read(&st.short_array));
	ok = !stress_errors();
	printk("ipc-stress: %s%s%s\n", ok ? "SUCCESS" : "FAILURE: ", ok ? "" : why,
	       ok ? "" : " (caught by the readers)");

	/* Whatever the verdict: nothing leaked, nothing left waiting. */
	KT_EXPECT(t, k1.objects == k0.objects && k1.bytes == k0.bytes,
		  "kmalloc objects %ld -> %ld, bytes %ld -> %ld", k0.objects, k1.objects,
		  k0.bytes, k1.bytes);
	KT_EXPECT(t, ipc_rcu_pending_count() == 0, "%ld ipc_rcu_free()s still pending",
		  ipc_rcu_pending_count());
	return ok;
}

KTEST(ipc_rcu_stress)
{
	char why[120];

	if (ipc_mode != IPC_MODE_RCU) {
		ktest_skip(t, "ipc=global: readers take no RCU lookup there");
		return;
	}
	KT_EXPECT(t, ipc_stress_run(t, why, sizeof(why)), "ipc-stress: FAILURE: %s", why);
	/* Liveness: it all moved. */
	KT_EXPECT(t, atomic_long_read(&st.found) > 0 && atomic_long_read(&st.locked) > 0,
		  "readers found %ld objects, locked %ld", atomic_long_read(&st.found),
		  atomic_long_read(&st.locked));
	KT_EXPECT(t, atomic_long_read(&st.grows) > 0 && atomic_long_read(&st.resets) > 0 &&
		  atomic_long_read(&st.removed) > 0, "grow_ary %ld, resets %ld, removals %ld",
		  atomic_long_read(&st.grows), atomic_long_read(&st.resets),
		  atomic_long_read(&st.removed));
}

/*
 * For the busted variant (configs/rcu_busted_defconfig): passes when the
 * readers catch freed or reused memory, which shows the stress depends on
 * RCU's grace periods.
 */
KTEST_MANUAL(ipc_rcu_stress_expect_failure)
{
	char why[120];
	bool ok = ipc_stress_run(t, why, sizeof(why));

	KT_EXPECT(t, !ok, "ipc-stress reported SUCCESS; this RCU variant should fail it");
}
