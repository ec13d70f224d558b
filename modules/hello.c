/*
 * hello: the smallest useful module, and the one the tests load, unload
 * and break (tools/mkbadmod.py starts from it).
 *
 *	insmod /lib/modules/hello.ko count=2 who=world loud
 *	modctl hello spin 200        (busy in hello_spin(): nmitop finds it)
 *	modctl hello backtrace       (a backtrace that names [hello])
 *	modctl hello oops            (a panic whose trace names [hello])
 *	rmmod hello
 *
 * Parameters: count (int, greetings), who (charp), loud (bool), fail
 * (int: init returns -fail, to test a failing init).
 */
#include <module.h>
#include <printk.h>
#include <kmalloc.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <errno.h>
#include <arch/irq.h>

static int count = 1;
static char *who = "world";
static bool loud;
static int fail;
static char *greeting;
static unsigned long spins;

module_param(count, int, "how many greetings (at most 10 are printed)");
module_param(who, charp, "whom to greet");
module_param(loud, bool, "shout");
module_param(fail, int, "if not 0, init fails with -fail (tests)");

static int hello_init(void)
{
	greeting = kmalloc(64);
	if (!greeting)
		return -ENOMEM;
	if (fail) {
		kfree(greeting);
		return fail > 0 ? -fail : fail;
	}
	snprintf(greeting, 64, loud ? "HELLO, %s!" : "hello, %s", who);
	for (int i = 0; i < count && i < 10; i++)
		printk("hello: %s (%d of %d)\n", greeting, i + 1, count);
	return 0;
}

static void hello_exit(void)
{
	printk("hello: goodbye, %s (%lu spins)\n", who, spins);
	kfree(greeting);
}

/* Busy for ms milliseconds in this module's own code. */
static __attribute__((noinline)) void hello_spin(unsigned long ms)
{
	u64 end = ktime_get_ns() + ms * 1000000;

	while (ktime_get_ns() < end) {
		for (int i = 0; i < 1000; i++)
			__asm__ __volatile__("" ::: "memory");
		spins++;
	}
}

static __attribute__((noinline)) void hello_backtrace(void)
{
	printk("hello: a backtrace from inside the module:\n");
	dump_stack();
	barrier();		/* not a tail call: keep this frame in the trace */
}

/* The deliberate crash (ktest=module_oops): the panic's trace names us. */
static __attribute__((noinline)) void hello_oops(void)
{
	printk("hello: writing to a NULL pointer, on purpose\n");
	WRITE_ONCE(*(volatile int *)(unsigned long)fail, 1);	/* fail is 0 unless set */
	barrier();
}

static long hello_ctl(unsigned int cmd, unsigned long arg, void __user *buf, size_t len)
{
	switch (cmd) {
	case HELLO_CTL_SPIN:
		if (arg > 10000)
			return -EINVAL;
		hello_spin(arg);
		return 0;
	case HELLO_CTL_BACKTRACE:
		hello_backtrace();
		return 0;
	case HELLO_CTL_SLEEP:
		if (arg > 10000)
			return -EINVAL;
		msleep(arg);
		return 0;
	case HELLO_CTL_COUNT:
		return count;
	case HELLO_CTL_OOPS:
		hello_oops();
		return 0;
	}
	return -EINVAL;
}

module_init(hello_init);
module_exit(hello_exit);
module_ctl(hello_ctl);
MODULE_DESCRIPTION("says hello; spins, sleeps and backtraces on request");
MODULE_AUTHOR("Quiescent");
MODULE_LICENSE("GPL");
