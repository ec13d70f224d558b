/*
 * Kernel timers (include/timer.h): a per-CPU cascading timer wheel, the
 * structure of Linux 2.4-2.6.
 *
 * Level tv1 has 256 slots, one per jiffy: a timer due within 256 jiffies
 * sits in the slot of its expiry. Levels tv2..tv5 have 64 slots each and
 * cover 2^14, 2^20, 2^26 and 2^32 jiffies; whenever tv1's index wraps, the
 * next slot of tv2 is "cascaded": its timers are re-filed by their exact
 * expiry, and so on upwards. Adding and deleting are O(1); each timer is
 * touched at most once per level on its way down.
 *
 * The wheel of CPU n is only run by CPU n, in TIMER_SOFTIRQ, which its
 * tick raises when a timer might be due: so a timer runs on the CPU it
 * was queued on. A per-wheel spinlock makes add/del from other CPUs safe;
 * the handler runs with the lock dropped, and base->running_timer tells
 * del_timer_sync() when it may return.
 */
#include <timer.h>
#include <softirq.h>
#include <spinlock.h>
#include <percpu.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <panic.h>
#include <printk.h>

#define TVR_BITS	8
#define TVN_BITS	6
#define TVR_SIZE	(1 << TVR_BITS)
#define TVN_SIZE	(1 << TVN_BITS)
#define TVR_MASK	(TVR_SIZE - 1)
#define TVN_MASK	(TVN_SIZE - 1)

struct timer_base {
	spinlock_t lock;
	unsigned long timer_jiffies;	/* next jiffy the wheel will process */
	struct timer_list *running_timer;
	unsigned long nr_pending;
	unsigned int cpu;
	struct list_head tv1[TVR_SIZE];
	struct list_head tvn[4][TVN_SIZE];	/* tv2..tv5 */
	struct timer_stats stats;
};

static DEFINE_PER_CPU(struct timer_base, timer_base);
volatile u64 jiffies_stamp_ns __tick_line;	/* written with jiffies */

void init_timer(struct timer_list *t)
{
	INIT_LIST_HEAD(&t->entry);
	t->base = NULL;
}

void setup_timer(struct timer_list *t, void (*fn)(unsigned long), unsigned long data)
{
	init_timer(t);
	t->function = fn;
	t->data = data;
}

bool timer_pending(const struct timer_list *t)
{
	return !list_empty(&t->entry);
}

int timer_cpu(const struct timer_list *t)
{
	struct timer_base *b = READ_ONCE(t->base);
	return b ? (int)b->cpu : -1;
}

/* File t by its expiry relative to the wheel's time. Lock held. */
static void internal_add_timer(struct timer_base *b, struct timer_list *t)
{
	unsigned long expires = t->expires;
	unsigned long idx = expires - b->timer_jiffies;
	struct list_head *vec;

	if ((long)idx < 0) {
		vec = &b->tv1[b->timer_jiffies & TVR_MASK];	/* already due */
	} else if (idx < TVR_SIZE) {
		vec = &b->tv1[expires & TVR_MASK];
	} else {
		int level = 0;
		unsigned long limit = 1UL << (TVR_BITS + TVN_BITS);

		while (level < 3 && idx >= limit) {
			level++;
			limit <<= TVN_BITS;
		}
		if (level == 3 && idx > 0xffffffffUL) {	/* beyond the wheel: cap */
			expires = b->timer_jiffies + 0xffffffffUL;
			t->expires = expires;
		}
		vec = &b->tvn[level][(expires >> (TVR_BITS + level * TVN_BITS)) & TVN_MASK];
	}
	list_add_tail(&t->entry, vec);
}

/* Lock the wheel t is on; t->base can change until we hold its lock. */
static struct timer_base *lock_timer_base(struct timer_list *t, unsigned long *flags)
{
	for (;;) {
		struct timer_base *b = READ_ONCE(t->base);
		if (!b)
			return NULL;
		*flags = spin_lock_irqsave(&b->lock);
		if (b == READ_ONCE(t->base)) {
			__lock_handoff(&b->lock);	/* locked, or NULL: the caller's */
			return b;
		}
		spin_unlock_irqrestore(&b->lock, *flags);
	}
}

static bool detach_timer(struct timer_base *b, struct timer_list *t)
{
	if (list_empty(&t->entry))
		return false;
	list_del_init(&t->entry);
	b->nr_pending--;
	return true;
}

static void enqueue(struct timer_base *b, struct timer_list *t)
{
	/* An empty wheel stopped counting: catch its clock up first. */
	if (!b->nr_pending && !b->running_timer)
		b->timer_jiffies = READ_ONCE(jiffies);
	internal_add_timer(b, t);
	b->nr_pending++;
	b->stats.added++;
	WRITE_ONCE(t->base, b);
}

/*
 * Lock two wheels, in address order (one if they are the same), interrupts
 * already off.
 */
static void lock_two_bases(struct timer_base *a, struct timer_base *b)
	__acquires(&a->lock) __acquires(&b->lock)
{
	if (a == b) {
		spin_lock(&a->lock);
		__acquire(&b->lock);	/* sparse: one lock, counted as both */
	} else if (a < b) {
		spin_lock(&a->lock);
		spin_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);	/* address order */
	} else {
		spin_lock(&b->lock);
		spin_lock_nested(&a->lock, SINGLE_DEPTH_NESTING);
	}
}

static void unlock_two_bases(struct timer_base *a, struct timer_base *b)
	__releases(&a->lock) __releases(&b->lock)
{
	spin_unlock(&a->lock);
	if (a != b)
		spin_unlock(&b->lock);
	else
		__release(&b->lock);
}

/*
 * (Re)arm t on wheel nb, wherever it was. Both wheels are held while t
 * moves, so that a mod_timer() or del_timer() on another CPU, which locks
 * the wheel t->base names, never sees t between two wheels. A timer never
 * armed (t->base NULL) is claimed for nb with one compare-and-swap: two
 * CPUs arming it for the first time at once (rcu's global rcu_timer, from
 * two CPUs' tasklets) would otherwise both add it, each to its own wheel,
 * and corrupt both lists; rcu-preempt's torture found that.
 */
static void add_timer_base(struct timer_list *t, struct timer_base *nb)
{
	unsigned long flags;
	struct timer_base *ob;

	for (;;) {
		ob = READ_ONCE(t->base);
		if (!ob) {
			struct timer_base *none = NULL;

			if (!__atomic_compare_exchange_n(&t->base, &none, nb, false,
							 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
				continue;	/* another CPU claimed it first */
			ob = nb;
		}
		flags = local_irq_save();
		lock_two_bases(ob, nb);
		if (READ_ONCE(t->base) == ob)
			break;
		unlock_two_bases(ob, nb);
		local_irq_restore(flags);
	}
	detach_timer(ob, t);
	enqueue(nb, t);
	unlock_two_bases(ob, nb);
	local_irq_restore(flags);
}

void add_timer(struct timer_list *t)
{
	BUG_ON(!t->function);
	preempt_disable();
	add_timer_base(t, this_cpu_ptr(&timer_base));
	preempt_enable();
}

void add_timer_on(struct timer_list *t, unsigned int cpu)
{
	BUG_ON(!t->function || cpu >= nr_cpu_ids);
	add_timer_base(t, per_cpu_ptr(&timer_base, cpu));
}

bool mod_timer(struct timer_list *t, unsigned long expires)
{
	unsigned long flags;
	struct timer_base *b = lock_timer_base(t, &flags);
	bool was_pending;

	if (!b) {
		t->expires = expires;
		add_timer(t);
		return false;
	}
	__lock_takeback(&b->lock);	/* lock_timer_base() returned it locked */
	/*
	 * Not queued, and last on the wheel of a CPU now offline: arm it
	 * here instead. cpu_down() moved that wheel's queued timers
	 * (timers_migrate()); one between two runs was on no list, and its
	 * base still names the parked CPU's wheel, which nothing runs until
	 * the CPU returns. The online mask is cleared before the wheel is
	 * emptied, under its lock, so a timer queued there on a stale look
	 * is moved with the rest.
	 */
	if (list_empty(&t->entry) && !cpu_online(b->cpu)) {
		spin_unlock_irqrestore(&b->lock, flags);
		t->expires = expires;
		add_timer(t);
		return false;
	}
	was_pending = detach_timer(b, t);
	t->expires = expires;
	enqueue(b, t);
	spin_unlock_irqrestore(&b->lock, flags);
	return was_pending;
}

bool del_timer(struct timer_list *t)
{
	unsigned long flags;
	struct timer_base *b = lock_timer_base(t, &flags);
	bool was_pending;

	if (!b)
		return false;
	__lock_takeback(&b->lock);	/* lock_timer_base() returned it locked */
	was_pending = detach_timer(b, t);
	spin_unlock_irqrestore(&b->lock, flags);
	return was_pending;
}

bool del_timer_sync(struct timer_list *t)
{
	WARN_ON_ONCE(in_irq());
	for (;;) {
		bool ret = del_timer(t);
		struct timer_base *b = READ_ONCE(t->base);

		if (!b || READ_ONCE(b->running_timer) != t)
			return ret;
		cpu_relax();
	}
}

/* Re-file every timer of one upper-level slot. Returns the slot index. */
static int cascade(struct timer_base *b, int level, int index)
{
	struct list_head *head = &b->tvn[level][index];

	while (!list_empty(head)) {
		struct timer_list *t = container_of(head->next, struct timer_list, entry);
		list_del_init(&t->entry);
		internal_add_timer(b, t);
	}
	b->stats.cascades++;
	return index;
}

#define TV_INDEX(b, level) \
	(((b)->timer_jiffies >> (TVR_BITS + (level) * TVN_BITS)) & TVN_MASK)

static void run_timers(struct timer_base *b)
{
	spin_lock_irq(&b->lock);
	while (time_after_eq(READ_ONCE(jiffies), b->timer_jiffies)) {
		int index = b->timer_jiffies & TVR_MASK;
		struct list_head work;

		if (!index && !cascade(b, 0, TV_INDEX(b, 0)) &&
		    !cascade(b, 1, TV_INDEX(b, 1)) && !cascade(b, 2, TV_INDEX(b, 2)))
			cascade(b, 3, TV_INDEX(b, 3));
		b->timer_jiffies++;

		INIT_LIST_HEAD(&work);
		if (!list_empty(&b->tv1[index])) {	/* take the slot's list whole */
			work.next = b->tv1[index].next;
			work.prev = b->tv1[index].prev;
			work.next->prev = &work;
			work.prev->next = &work;
			INIT_LIST_HEAD(&b->tv1[index]);
		}
		while (!list_empty(&work)) {
			struct timer_list *t = container_of(work.next, struct timer_list, entry);
			void (*fn)(unsigned long) = t->function;
			unsigned long data = t->data;

			list_del_init(&t->entry);
			b->nr_pending--;
			b->running_timer = t;
			b->stats.fired++;
			spin_unlock_irq(&b->lock);
			fn(data);
			spin_lock_irq(&b->lock);
			b->running_timer = NULL;
		}
	}
	spin_unlock_irq(&b->lock);
}

static void timer_softirq(void)
{
	struct timer_base *b = this_cpu_ptr(&timer_base);

	b->stats.softirqs++;
	run_timers(b);
}

/*
 * From this CPU's tick, interrupts off. No pending timer, no softirq: an
 * idle wheel costs one load per tick (the idle overhead of seed 000 Table 2
 * starts here).
 */
void timer_tick(void)
{
	struct timer_base *b = this_cpu_ptr(&timer_base);

	if (smp_processor_id() == 0)
		jiffies_stamp_ns = ktime_get_ns();
	if (READ_ONCE(b->nr_pending) && time_after_eq(READ_ONCE(jiffies), b->timer_jiffies))
		raise_softirq_irqoff(TIMER_SOFTIRQ);
}

void timer_get_stats(unsigned int cpu, struct timer_stats *out)
{
	struct timer_base *b = per_cpu_ptr(&timer_base, cpu);

	*out = b->stats;
	out->pending = b->nr_pending;
}

/* After the other CPUs are up: their per-CPU areas exist only then. */
void timers_init(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct timer_base *b = per_cpu_ptr(&timer_base, cpu);

		spin_lock_init(&b->lock, "timer_base");
		b->cpu = cpu;
		b->timer_jiffies = jiffies;
		for (int i = 0; i < TVR_SIZE; i++)
			INIT_LIST_HEAD(&b->tv1[i]);
		for (int l = 0; l < 4; l++)
			for (int i = 0; i < TVN_SIZE; i++)
				INIT_LIST_HEAD(&b->tvn[l][i]);
	}
	open_softirq(TIMER_SOFTIRQ, timer_softirq);
}

/*
 * CPU hotplug: every timer on from's wheel moves to to's, keeping its
 * expiry; from's tick is stopped already, so nothing runs its wheel while
 * we hold both locks. A timer that was due fires at to's next tick.
 */
void timers_migrate(unsigned int from, unsigned int to)
{
	struct timer_base *ob = per_cpu_ptr(&timer_base, from);
	struct timer_base *nb = per_cpu_ptr(&timer_base, to);
	unsigned long flags = local_irq_save();
	unsigned long moved = 0;

	lock_two_bases(ob, nb);
	for (int i = 0; i < TVR_SIZE + 4 * TVN_SIZE; i++) {
		struct list_head *head = i < TVR_SIZE ? &ob->tv1[i] :
					 &ob->tvn[(i - TVR_SIZE) / TVN_SIZE][(i - TVR_SIZE) % TVN_SIZE];

		while (!list_empty(head)) {
			struct timer_list *t = container_of(head->next, struct timer_list, entry);

			detach_timer(ob, t);
			enqueue(nb, t);
			moved++;
		}
	}
	unlock_two_bases(ob, nb);
	local_irq_restore(flags);
	(void)moved;
}
