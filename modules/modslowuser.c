/*
 * modslowuser: calls modslow_answer() (modules/modslow.c) from its init
 * and again from its exit, so that an unload after modslow went away
 * would run freed code.
 */
#include <module.h>
#include <printk.h>

long modslow_answer(void);

static int modslowuser_init(void)
{
	printk("modslowuser: modslow_answer() = %ld\n", modslow_answer());
	return 0;
}

static void modslowuser_exit(void)
{
	printk("modslowuser: modslow_answer() = %ld on the way out\n", modslow_answer());
}

module_init(modslowuser_init);
module_exit(modslowuser_exit);
MODULE_DESCRIPTION("uses modslow's export in init and exit");
MODULE_LICENSE("GPL");
