/*
 * What the kernel exports to modules: the one list, kept short on
 * purpose (the tests export their own hooks beside them, from
 * kernel/test/). A module may call these (and what loaded modules
 * export) and nothing else; its undefined symbols are resolved against this table,
 * never against the backtrace symbol table (.ksymtab), so that an
 * internal function can change without a module depending on it, and so
 * that a module cannot reach the scheduler's or RCU's insides.
 *
 * Inline helpers (spin_lock(), preempt_disable(), rcu_read_lock(),
 * atomics, list and RCU-list operations, this_cpu()) compile into the
 * module and need only what they call or read: spin_tas_mode,
 * __spin_lock_recursion, preempt_schedule, __per_cpu_offset. (In the
 * rcu-preempt build, rcu_read_lock() counts in the current task inline,
 * and with PROVE_RCU rcu_read_unlock() calls rcu_preempt_read_unlock(),
 * which kernel/rcu/rcu_preempt.c exports itself: no variant is named
 * outside kernel/rcu.)
 */
#include <export.h>
#include <string.h>
#include <printk.h>
#include <panic.h>
#include <kmalloc.h>
#include <rcupdate.h>
#include <spinlock.h>
#include <mutex.h>
#include <completion.h>
#include <sched.h>
#include <timer.h>
#include <time.h>
#include <smp.h>
#include <percpu.h>
#include <ksyms.h>
#include <nmi.h>
#include <module.h>
#include <uaccess.h>
#include <arch/irq.h>
#include <lockdep.h>

/* Console, strings, formatting. */
EXPORT_SYMBOL(printk);
EXPORT_SYMBOL(snprintf);
EXPORT_SYMBOL(vsnprintf);
EXPORT_SYMBOL(memset);
EXPORT_SYMBOL(memcpy);
EXPORT_SYMBOL(memmove);
EXPORT_SYMBOL(memcmp);
EXPORT_SYMBOL(strlen);
EXPORT_SYMBOL(strcmp);
EXPORT_SYMBOL(strncmp);
EXPORT_SYMBOL(strlcpy);
EXPORT_SYMBOL(panic);
EXPORT_SYMBOL(warn_slowpath);
EXPORT_SYMBOL(dump_stack);

/* Memory. */
EXPORT_SYMBOL(kmalloc);
EXPORT_SYMBOL(kzalloc);
EXPORT_SYMBOL(kfree);
EXPORT_SYMBOL(copy_to_user);
EXPORT_SYMBOL(copy_from_user);

/* The RCU API (include/rcupdate.h). */
EXPORT_SYMBOL(call_rcu);
EXPORT_SYMBOL(synchronize_kernel);
EXPORT_SYMBOL(rcu_barrier);
EXPORT_SYMBOL(__kfree_rcu);
EXPORT_SYMBOL(call_rcu_rt);
EXPORT_SYMBOL(get_state_synchronize_rcu);
EXPORT_SYMBOL(poll_state_synchronize_rcu);

/* Locks and waiting. */
EXPORT_SYMBOL(__spin_lock_init);
EXPORT_SYMBOL(spin_tas_mode);
EXPORT_SYMBOL(__spin_lock_recursion);
EXPORT_SYMBOL(__mutex_init);
EXPORT_SYMBOL(mutex_lock_at);
EXPORT_SYMBOL(mutex_unlock_at);
EXPORT_SYMBOL(mutex_lock);
EXPORT_SYMBOL(mutex_unlock);
EXPORT_SYMBOL(init_completion);
EXPORT_SYMBOL(complete);
EXPORT_SYMBOL(wait_for_completion);
EXPORT_SYMBOL(preempt_schedule);
EXPORT_SYMBOL(__might_sleep);

/* Time, threads, timers, CPUs. */
EXPORT_SYMBOL(jiffies);
EXPORT_SYMBOL(tsc_khz);
EXPORT_SYMBOL(ktime_get_ns);
EXPORT_SYMBOL(udelay);
EXPORT_SYMBOL(mdelay);
EXPORT_SYMBOL(msleep);
EXPORT_SYMBOL(cond_resched);
EXPORT_SYMBOL(kthread_create_on_cpu);
EXPORT_SYMBOL(kthread_stop);
EXPORT_SYMBOL(kthread_should_stop);
EXPORT_SYMBOL(wake_up_process);
EXPORT_SYMBOL(setup_timer);
EXPORT_SYMBOL(mod_timer);
EXPORT_SYMBOL(del_timer_sync);
EXPORT_SYMBOL(nr_cpu_ids);
EXPORT_SYMBOL(cpu_online_mask);
EXPORT_SYMBOL(__per_cpu_offset);
EXPORT_SYMBOL(on_each_cpu);

/* Symbols and modules. */
EXPORT_SYMBOL(ksym_resolve);
EXPORT_SYMBOL(try_module_get);
EXPORT_SYMBOL(module_put);

/* NMIs (seed 001): the handler chain and the periodic NMI source. */
EXPORT_SYMBOL(register_nmi_handler);
EXPORT_SYMBOL(unregister_nmi_handler);
EXPORT_SYMBOL(nmi_timer_start);
EXPORT_SYMBOL(nmi_timer_stop);
EXPORT_SYMBOL(nmi_timer_hz);

extern const struct kernel_symbol __exports_start[], __exports_end[];

unsigned long kernel_export_lookup(const char *name)
{
	for (const struct kernel_symbol *s = __exports_start; s < __exports_end; s++)
		if (!strcmp(s->name, name))
			return s->addr;
	return 0;
}

#ifdef CONFIG_PROVE_LOCKING
/* The lock validator's hooks, which the inline lock calls make. */
EXPORT_SYMBOL(lock_acquire);
EXPORT_SYMBOL(lock_release);
EXPORT_SYMBOL(lock_is_held);
EXPORT_SYMBOL(lockdep_init_map);
EXPORT_SYMBOL(debug_locks);
#endif
