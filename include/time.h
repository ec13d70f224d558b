/*
 * Time: jiffies (ticks since boot, per CONFIG_HZ), and a nanosecond clock
 * from the TSC calibrated at boot (kernel/time/tsc.c).
 */
#ifndef _TIME_H
#define _TIME_H

#include <compiler.h>

#define HZ		CONFIG_HZ
#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_USEC	1000ULL
#define TICK_NSEC	(NSEC_PER_SEC / HZ)

extern volatile unsigned long jiffies;
extern u64 tsc_khz;			/* TSC ticks per millisecond */

u64 ktime_get_ns(void);			/* 0 until the TSC is calibrated */
u64 cycles_to_ns(u64 cycles);
void udelay(unsigned long us);		/* busy-wait */
void mdelay(unsigned long ms);

#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after(b, a)
#define time_after_eq(a, b)	((long)((a) - (b)) >= 0)

static inline unsigned long __msecs_to_jiffies(unsigned long ms, unsigned long hz)
{
	return (ms * hz + 999) / 1000;
}
/*
 * A macro, so that HZ's value is in the preprocessed text only of the
 * files that convert: the function's body naming it put it into every
 * includer, and ccache could not share those objects between the HZ
 * configurations (Makefile, AUTOCONF_RSP). The compiler folds hz alike.
 */
#define msecs_to_jiffies(ms)	__msecs_to_jiffies((ms), HZ)

/* PIT reference interval, for calibration (kernel/time/pit.c). */
#define PIT_HZ		1193182
void pit_wait_start(unsigned long us);
void pit_wait_end(void);
bool pit_out_high(void);
u32 pit_read_count(void);
void tsc_calibrate(void);

#endif
