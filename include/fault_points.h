/*
 * Every fault-injection point in the kernel, once (include/fault_inject.h
 * is the seam; docs/fault-injection.md says what each widens). A point is
 * named for the place it sits, not for the test that uses it:
 *
 *   X(name, "where it is and what a delay there widens")
 *
 * tests/test_fault_points.py checks that each one is used exactly once in
 * the kernel and documented.
 */
#define FAULT_POINTS(X)								\
	X(dcache_walk_node, "d_lookup_rcu(): each chain node, before its ->next is read")	\
	X(dcache_lookup_match, "d_lookup_rcu(): a matching dentry, before its d_lock is taken")	\
	X(rename_target_unhashed, "d_move(): the rename's target out of the hash, the source not yet in")	\
	X(rt_lookup_match, "rt_cache_get_rcu(): a matching route cache entry, before its reference is taken")	\
	X(fget_fdt, "fget_rcu(): the descriptor table loaded, before its bound is read")	\
	X(fget_file, "fget_rcu(): the file loaded, before its reference is taken")	\
	X(sem_after_wake, "update_queue(): after a waiter is woken, with the array locked")	\
	X(ps_entry, "the ps walk (proc_list): on each task or process it lists, under RCU")	\
	X(task_published, "task_list_add(): a task just put on the task list and in the PID hash")	\
	X(tasks_rcu_holdout, "rcu_tasks_collect(): a runnable task chosen as a holdout, before its reference is taken")	\
	X(migrate_off_rq, "finish_task_switch(): a preempted task that may not stay, off every queue until it is queued on an allowed CPU")	\
	X(dead_tasks_tasklet, "dead_tasks_free(): the tasklet, before it queues the dead tasks put_task() parked")	\
	X(kill_signal_self, "proc_signal(): a real signal about to be queued on the sender's own process")	\
	X(srcu_kthread_woken, "srcu_gp_kthread(): woken with work to do, before it takes the callbacks")	\
	X(cpu_stopper_irqs_off, "cpu_stopper(): interrupts off on the dying CPU, its tick not yet stopped")
