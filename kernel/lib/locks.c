/* Out-of-line parts of the spinlock, rwlock and brlock code. */
#include <spinlock.h>
#include <brlock.h>
#include <panic.h>
#include <printk.h>
#include <cmdline.h>
#include <string.h>

void __spin_lock_init(spinlock_t *l, const char *name, const struct lock_class_key *key)
{
	l->val = 0;
	l->holder = -1;
	l->name = name;
	lockdep_init_map(&l->dep_map, name, key);
}

void __spin_lock_recursion(spinlock_t *l)
{
	panic("recursive spin_lock: CPU %u already holds '%s' (%p)",
	      smp_processor_id(), l->name ? l->name : "?", l);
}

void brlock_init(struct brlock *b)
{
	for (int i = 0; i < CONFIG_NR_CPUS; i++)
		rwlock_init(&b->cpu_lock[i]);
}

/* Writers take every CPU's lock in CPU order (so two writers cannot deadlock). */
void br_write_lock(struct brlock *b)
{
	preempt_disable();
	for (int i = 0; i < CONFIG_NR_CPUS; i++)
		arch_write_lock(&b->cpu_lock[i]);
}

void br_write_unlock(struct brlock *b)
{
	for (int i = CONFIG_NR_CPUS - 1; i >= 0; i--)
		arch_write_unlock(&b->cpu_lock[i]);
	preempt_enable();
}

/* ---- ticket or test-and-set (include/spinlock.h) ---- */

bool spin_tas_mode;
static int spin_mode_forced = -1;	/* -1 auto, 0 ticket, 1 tas */

static int set_spinlock_mode(const char *val)
{
	if (val && !strcmp(val, "ticket"))
		spin_mode_forced = 0;
	else if (val && !strcmp(val, "tas"))
		spin_mode_forced = 1;
	else
		return -1;
	return 0;
}
CMDLINE_PARAM("spinlock", set_spinlock_mode,
	      "spinlock=ticket|tas: fair ticket locks, or test-and-set (default: tas under a hypervisor)");

static bool under_hypervisor(void)
{
	u32 a, b, c, d;
	cpuid(1, 0, &a, &b, &c, &d);
	return c & (1U << 31);
}

/* Called once on the boot CPU, before any other CPU runs. */
void spinlock_choose_mode(void)
{
	spin_tas_mode = spin_mode_forced >= 0 ? spin_mode_forced : under_hypervisor();
}

const char *spinlock_mode_name(void)
{
	return spin_tas_mode ? "test-and-set" : "ticket";
}
