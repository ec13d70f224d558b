/*
 * modstress: the module that the unload stress tests load and unload in a
 * loop while other CPUs call into it (kernel/module/module_stress.c,
 * ktest=module_unload_stress, nmi_handler_stress).
 *
 * It publishes a struct modstress_ops (kernel/module/modstress.h) whose
 * call() reads a table in the module's data; with nmi=1 it also
 * registers an NMI handler that reads the same table on every NMI. Both
 * the ops and the table live in module memory, which the loader poisons
 * and unmaps at unload: a CPU still inside call() or the NMI handler
 * after that reads poison (a wrong sum, counted) or faults.
 */
#include <module.h>
#include <nmi.h>
#include <printk.h>
#include <smp.h>
#include "../kernel/module/modstress.h"

static bool nmi, forget;
module_param(nmi, bool, "also register an NMI handler that reads the table");
module_param(forget, bool, "exit() forgets to unregister the NMI handler (tests)");

static unsigned long table[MODSTRESS_TABLE];
static unsigned long nmi_calls[CONFIG_NR_CPUS];
static unsigned long nmi_bad;

static __attribute__((noinline)) unsigned long stress_call(unsigned long seed)
{
	unsigned long acc = 0;

	for (unsigned long i = 0; i < MODSTRESS_ROUNDS; i++)
		acc += READ_ONCE(table[(seed + i) % MODSTRESS_TABLE]);
	return acc;
}

static struct modstress_ops ops = {
	.owner = THIS_MODULE,
	.call = stress_call,
};

static int stress_nmi(struct pt_regs *regs, void *arg)
{
	unsigned int cpu = smp_processor_id();

	if (stress_call(cpu) != modstress_expected(cpu))
		nmi_bad++;
	nmi_calls[cpu]++;
	return NMI_DONE;
}

static struct nmi_handler stress_nmi_handler = {
	.handler = stress_nmi,
	.name = "modstress",
};

static int modstress_init(void)
{
	int err;

	for (int i = 0; i < MODSTRESS_TABLE; i++)
		table[i] = MODSTRESS_MAGIC ^ i;
	if (nmi && (err = register_nmi_handler(&stress_nmi_handler)))
		return err;
	err = modstress_register(&ops);
	if (err && nmi)
		unregister_nmi_handler(&stress_nmi_handler);
	return err;
}

static void modstress_exit(void)
{
	modstress_unregister(&ops);	/* no wait: the unload's grace period covers it */
	if (nmi && !forget)
		unregister_nmi_handler(&stress_nmi_handler);	/* waits (seed 001) */
	if (nmi_bad)
		printk("modstress: %lu NMI reads of a bad table\n", nmi_bad);
}

module_init(modstress_init);
module_exit(modstress_exit);
MODULE_DESCRIPTION("called into from every CPU while it is loaded and unloaded (tests)");
MODULE_LICENSE("GPL");
