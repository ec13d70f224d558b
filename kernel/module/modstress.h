/*
 * The hook through which the module stress tests call into a module
 * (kernel/module/module_stress.c, modules/modstress.c). The module
 * publishes its ops at init and unpublishes them at exit without waiting:
 * the unload's synchronize_kernel() (seed 000 Figure 8) covers every
 * reader that found them.
 */
#ifndef _MODSTRESS_H
#define _MODSTRESS_H

#include <types.h>

struct module;

#define MODSTRESS_MAGIC		0x5354524553530000UL	/* "STRESS" */
#define MODSTRESS_TABLE		64
#define MODSTRESS_ROUNDS	1024

struct modstress_ops {
	struct module *owner;
	/* Sums table[(seed + i) % 64] over MODSTRESS_ROUNDS rounds, where
	 * table[i] = MODSTRESS_MAGIC ^ i: any other answer means it read
	 * memory that is no longer the module's. */
	unsigned long (*call)(unsigned long seed);
};

static inline unsigned long modstress_expected(unsigned long seed)
{
	unsigned long acc = 0;

	for (unsigned long i = 0; i < MODSTRESS_ROUNDS; i++)
		acc += MODSTRESS_MAGIC ^ ((seed + i) % MODSTRESS_TABLE);
	return acc;
}

/* -EBUSY if another module's ops are published. */
int modstress_register(struct modstress_ops *ops);
void modstress_unregister(struct modstress_ops *ops);

#endif
