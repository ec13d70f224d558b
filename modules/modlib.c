/*
 * modlib: a module that exports a function to other modules (moduser.c).
 * While moduser is loaded, modlib cannot be unloaded (-EBUSY): moduser's
 * code calls into it. The loader resolves moduser's reference by reading
 * the module list (kernel/module/list.c, module_export_lookup()).
 */
#include <module.h>
#include <printk.h>

static unsigned long modlib_calls;

long modlib_add(long a, long b);
long modlib_add(long a, long b)
{
	modlib_calls++;
	return a + b;
}
EXPORT_SYMBOL(modlib_add);

static int modlib_init(void)
{
	return 0;
}

static void modlib_exit(void)
{
	printk("modlib: %lu calls\n", modlib_calls);
}

module_init(modlib_init);
module_exit(modlib_exit);
MODULE_DESCRIPTION("exports modlib_add() to other modules");
MODULE_LICENSE("GPL");
