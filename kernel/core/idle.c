/*
 * The idle loop: what a CPU runs when it has nothing else to do. It halts
 * with interrupts enabled (sti; hlt is atomic, so a wake-up interrupt
 * cannot slip in between) and calls the idle hooks on every pass. While
 * cpu_local()->in_idle is set, a tick that arrives here counts as an idle
 * tick (include/tick.h). The scheduler's idle task runs this loop.
 */
#include <percpu.h>
#include <rcu_hooks.h>
#include <arch/cpu.h>
#include <idle.h>
#include <upcalls.h>

void cpu_idle(void)
{
	struct cpu_local *cl = cpu_local();

	for (;;) {
		WRITE_ONCE(cl->in_idle, 1);
		rcu_hook_idle();
		local_irq_disable();
		if (idle_should_exit()) {
			WRITE_ONCE(cl->in_idle, 0);
			local_irq_enable();
			idle_exit();
			continue;
		}
		safe_halt();
	}
}
