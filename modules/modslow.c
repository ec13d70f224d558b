/*
 * modslow: exports modslow_answer() and takes its time to come up.
 * With init_ms= its init sleeps that long; with fail= it then fails with
 * -fail. Another module linking against it meanwhile (modslowuser.c)
 * is what the loader must refuse: the export belongs to a module that
 * may never become live (kernel/module/list.c, module_export_lookup()).
 */
#include <module.h>
#include <printk.h>
#include <time.h>
#include <sched.h>
#include "../kernel/module/modslow.h"

static int init_ms;
static int fail;
static bool publish;

module_param(init_ms, int, "milliseconds init sleeps before it returns");
module_param(fail, int, "if not 0, init fails with -fail after its sleep");
module_param(publish, bool, "publish ops for the test during init (kernel/module/modslow.h)");

long modslow_answer(void);
long modslow_answer(void)
{
	return 42;
}
EXPORT_SYMBOL(modslow_answer);

static struct modslow_ops ops = {
	.owner = THIS_MODULE,
	.answer = modslow_answer,
};

static int modslow_init(void)
{
	if (publish)
		modslow_publish(&ops);
	if (init_ms > 0)
		msleep(init_ms);
	if (fail && publish)
		modslow_unpublish(&ops);	/* no wait: the failed load's grace period */
	return fail > 0 ? -fail : fail;
}

static void modslow_exit(void)
{
	if (publish)
		modslow_unpublish(&ops);
}

module_init(modslow_init);
module_exit(modslow_exit);
MODULE_DESCRIPTION("an export whose module is slow to come up, or fails to");
MODULE_LICENSE("GPL");
