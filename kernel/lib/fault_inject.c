/*
 * The fault-injection seam's points (include/fault_inject.h): which are
 * armed, with what, and how often they were reached. Built always, so a
 * test can ask (fault_set_handler() says -ENOSYS when the seam is
 * compiled out); the points themselves exist only with
 * CONFIG_FAULT_INJECT.
 */
#include <fault_inject.h>
#include <cmdline.h>
#include <errno.h>
#include <printk.h>
#include <string.h>
#include <time.h>
#include <atomic.h>
#include <arch/irq.h>
#include <percpu.h>

static const char *const fault_names[NR_FAULT_POINTS] = {
#define FAULT_NAME(name, what)	[FAULT_##name] = #name,
	FAULT_POINTS(FAULT_NAME)
#undef FAULT_NAME
};

const char *fault_point_name(enum fault_point p)
{
	return p < NR_FAULT_POINTS ? fault_names[p] : "?";
}

#ifdef CONFIG_FAULT_INJECT
unsigned long fault_armed;
static fault_handler_t fault_handlers[NR_FAULT_POINTS];
static unsigned long fault_delay_us[NR_FAULT_POINTS];
static unsigned long fault_hit_count[NR_FAULT_POINTS];
static unsigned long fault_warn;	/* bit n: point n is a planted bug (fault=<point>:warn) */

/* Only ever set and cleared by tests and at boot, never on a hot path. */
static void fault_update_armed(enum fault_point p)
{
	if (READ_ONCE(fault_handlers[p]) || READ_ONCE(fault_delay_us[p]) ||
	    (READ_ONCE(fault_warn) >> p & 1))
		__atomic_fetch_or(&fault_armed, 1UL << p, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&fault_armed, ~(1UL << p), __ATOMIC_SEQ_CST);
}

/* The delay first, then the handler: a handler that checks for a freed
 * object then sees what the delay let happen. */
int fault_fire(enum fault_point p, void *arg)
{
	unsigned long us = READ_ONCE(fault_delay_us[p]);
	fault_handler_t fn = READ_ONCE(fault_handlers[p]);

	__atomic_fetch_add(&fault_hit_count[p], 1, __ATOMIC_RELAXED);
	if (READ_ONCE(fault_warn) >> p & 1) {
		/* A planted bug: reaching the point is the report a fuzzer
		 * must provoke and a reproducer must provoke again. */
		printk("WARNING: CPU %u: fault point %s reached (a bug planted by fault=%s:warn)\n",
		       smp_processor_id(), fault_names[p], fault_names[p]);
		dump_stack();
	}
	if (us)
		udelay(us);
	return fn ? fn(arg) : 0;
}

int fault_set_handler(enum fault_point p, fault_handler_t fn)
{
	if (p >= NR_FAULT_POINTS)
		return -EINVAL;
	WRITE_ONCE(fault_handlers[p], fn);
	fault_update_armed(p);
	return 0;
}

int fault_set_delay(enum fault_point p, unsigned long us)
{
	if (p >= NR_FAULT_POINTS)
		return -EINVAL;
	WRITE_ONCE(fault_delay_us[p], us);
	fault_update_armed(p);
	return 0;
}

unsigned long fault_hits(enum fault_point p)
{
	return p < NR_FAULT_POINTS ? __atomic_load_n(&fault_hit_count[p], __ATOMIC_RELAXED) : 0;
}

#define FAULT_MAX_DELAY_US	1000000

static void fault_usage(const char *bad)
{
	printk("cmdline: fault=%s: expected <point>:<us> (us 0..%u) or <point>:warn, comma-separated; the points:\n",
	       bad, FAULT_MAX_DELAY_US);
	for (int i = 0; i < NR_FAULT_POINTS; i++)
		printk("cmdline:   %s\n", fault_names[i]);
}

/* fault=<point>:<us>|warn[,<point>:<us>|warn...] */
static int set_fault(const char *val)
{
	char buf[64];

	if (!val || !*val) {
		fault_usage("");
		return -EINVAL;
	}
	while (*val) {
		const char *end = strchr(val, ',');
		size_t len = end ? (size_t)(end - val) : strlen(val);
		unsigned long us;
		char *colon;
		int p;

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, val, len);
		buf[len] = '\0';
		colon = strchr(buf, ':');
		if (colon)
			*colon = '\0';
		for (p = 0; p < NR_FAULT_POINTS && strcmp(buf, fault_names[p]); p++)
			;
		if (colon && p < NR_FAULT_POINTS && !strcmp(colon + 1, "warn")) {
			__atomic_fetch_or(&fault_warn, 1UL << p, __ATOMIC_SEQ_CST);
			fault_update_armed(p);
			printk("fault: %s armed as a planted bug: a WARNING each time it is reached\n",
			       fault_names[p]);
			val += len + (end ? 1 : 0);
			continue;
		}
		if (!colon || p == NR_FAULT_POINTS || kstrtoul(colon + 1, 0, &us) ||
		    us > FAULT_MAX_DELAY_US) {
			if (colon)
				*colon = ':';
			fault_usage(buf);
			return -EINVAL;
		}
		fault_set_delay(p, us);
		printk("fault: %s armed with a %lu us delay\n", fault_names[p], us);
		val += len + (end ? 1 : 0);
	}
	return 0;
}
CMDLINE_PARAM("fault", set_fault,
	      "fault=<point>:<us>|warn[,...]: busy-wait us microseconds at a fault-injection point, or WARN there (docs/fault-injection.md)");
#else
static int set_fault(const char *val)
{
	printk("cmdline: fault=%s: this kernel is built without CONFIG_FAULT_INJECT: no point armed\n",
	       val ? val : "");
	return -EINVAL;
}
CMDLINE_PARAM("fault", set_fault,
	      "fault=<point>:<us>: needs CONFIG_FAULT_INJECT (docs/fault-injection.md)");

int fault_set_handler(enum fault_point p, fault_handler_t fn)
{
	return -ENOSYS;
}

int fault_set_delay(enum fault_point p, unsigned long us)
{
	return -ENOSYS;
}

unsigned long fault_hits(enum fault_point p)
{
	return 0;
}
#endif
