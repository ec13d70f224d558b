/*
 * The hook through which ktest=module_init_* reaches modslow's code by a
 * reference rather than by linking (kernel/module/module_init_test.c,
 * modules/modslow.c): its init publishes its ops before it sleeps and,
 * when told to fail, unpublishes them before it returns the error.
 */
#ifndef _MODSLOW_H
#define _MODSLOW_H

struct module;

struct modslow_ops {
	struct module *owner;
	long (*answer)(void);		/* 42, from the module's text */
};

void modslow_publish(struct modslow_ops *ops);
void modslow_unpublish(struct modslow_ops *ops);

#endif
