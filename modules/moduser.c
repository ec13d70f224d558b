/*
 * moduser: a module that uses another module's export (modlib_add(),
 * modules/modlib.c). Loading it without modlib fails: unresolved symbol.
 */
#include <module.h>
#include <printk.h>

long modlib_add(long a, long b);

static int moduser_init(void)
{
	printk("moduser: modlib_add(40, 2) = %ld\n", modlib_add(40, 2));
	return 0;
}

static void moduser_exit(void)
{
}

module_init(moduser_init);
module_exit(moduser_exit);
MODULE_DESCRIPTION("uses modlib's export");
MODULE_LICENSE("GPL");
