/* Out-of-line parts of the spinlock, rwlock and brlock code. */
#include <spinlock.h>
#include <brlock.h>
#include <panic.h>
#include <printk.h>

void spin_lock_init(spinlock_t *l, const char *name)
{
	l->val = 0;
	l->holder = -1;
	l->name = name;
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
