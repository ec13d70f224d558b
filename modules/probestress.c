/*
 * probestress: the module that ktest=rcu_tasks_probe_unload loads and
 * unloads in a loop while more kernel threads than CPUs hit a probe site
 * (kernel/test/test_rcu_tasks_probe.c). Its init attaches a handler that
 * stays 4 ms in the module with no voluntary switch, reading a table in
 * the module's data; a preemptible kernel preempts tasks there. Its exit
 * detaches the handler, and probe_detach()'s synchronize_rcu_tasks() is
 * what lets the loader poison and unmap the module afterwards. The exit
 * checks it: a task still counted inside the handler then is a panic
 * naming it; one that slipped past the count would read poison (a panic)
 * or fault on the unmapped text when it is switched back in.
 */
#include <module.h>
#include <probe.h>
#include <panic.h>
#include <time.h>
#include <atomic.h>
#include "../kernel/test/probestress.h"

static unsigned long table[PROBESTRESS_TABLE];
static atomic_t inside;		/* tasks between the handler's entry and return */

static void probestress_handler(struct probe *p, unsigned long arg)
{
	atomic_inc(&inside);
	for (unsigned long i = 0; i < PROBESTRESS_ROUNDS; i++) {
		unsigned long v = READ_ONCE(table[(arg + i) % PROBESTRESS_TABLE]);

		if (v != (PROBESTRESS_MAGIC ^ ((arg + i) % PROBESTRESS_TABLE)))
			panic("probestress: a task inside the probe read freed module memory "
			      "(%#lx)", v);
		udelay(100);	/* no voluntary switch: still inside */
	}
	atomic_dec(&inside);
}

static struct probe probe = {
	.handler = probestress_handler,
	.owner = THIS_MODULE,
};

static int probestress_init(void)
{
	for (int i = 0; i < PROBESTRESS_TABLE; i++)
		table[i] = PROBESTRESS_MAGIC ^ i;
	return probe_attach(&probestress_site, &probe);
}

static void probestress_exit(void)
{
	int n;

	probe_detach(&probestress_site, &probe);	/* waits for Tasks RCU */
	/*
	 * The promise the unload relies on, checked where it is needed: no
	 * task is left inside the handler (running, or preempted there) when
	 * the text is about to be freed. A task that loaded the probe before
	 * the detach but has not counted itself yet was runnable when the
	 * grace period began, so the wait covered it too.
	 */
	n = atomic_read(&inside);
	if (n)
		panic("probestress: exit with %d task%s still inside the probe handler "
		      "after probe_detach()", n, n == 1 ? "" : "s");
}

module_init(probestress_init);
module_exit(probestress_exit);
MODULE_DESCRIPTION("a probe handler that tasks are preempted inside (Tasks RCU unload stress)");
MODULE_LICENSE("GPL");
