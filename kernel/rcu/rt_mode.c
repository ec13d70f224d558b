/*
 * The realtime options' run-time switches and counters (include/rcu_rt.h),
 * for the amlat benchmark, the tests and the console: whichever of
 * krcud offload, direct invocation and throttling is built in can be
 * switched off and on, so that one boot measures seed 003 Table 1's rows
 * side by side under the same load. Built with every variant; without an
 * option, only its row is missing.
 */
#include "rcu_internal.h"
#include "rt.h"
#include <cmdline.h>
#include <printk.h>
#include <string.h>
#include <errno.h>

const char *const rcu_rt_mode_names[NR_RCU_RT_MODES] = {
	[RCU_RT_BASE] = "base",
	[RCU_RT_KRCUD] = "krcud",
	[RCU_RT_DIRECT] = "direct",
	[RCU_RT_THROTTLE] = "throttle",
};

void rcu_rt_late_init(void)
{
	rcu_offload_late_init();
	rcu_throttle_show();
#ifdef CONFIG_RCU_CALL_RT_DIRECT
	printk("rcu: direct invocation: call_rcu_rt() runs callbacks at once (1 CPU)\n");
#endif
}

bool rcu_rt_mode_available(enum rcu_rt_mode m)
{
	switch (m) {
	case RCU_RT_BASE:
		return true;
#ifdef CONFIG_RCU_KRCUD_OFFLOAD
	case RCU_RT_KRCUD:
		return rcu_offload_available();
#endif
#ifdef CONFIG_RCU_CALL_RT_DIRECT
	case RCU_RT_DIRECT:
		return true;
#endif
#ifdef CONFIG_RCU_THROTTLE
	case RCU_RT_THROTTLE:
		return rcu_throttle_available();
#endif
	default:
		return false;
	}
}

int rcu_rt_set_mode(enum rcu_rt_mode m)
{
	if (!rcu_rt_mode_available(m))
		return -1;
#ifdef CONFIG_RCU_KRCUD_OFFLOAD
	WRITE_ONCE(rcu_offload_on, m == RCU_RT_KRCUD);
#endif
#ifdef CONFIG_RCU_CALL_RT_DIRECT
	WRITE_ONCE(rcu_direct_on, m == RCU_RT_DIRECT);
#endif
#ifdef CONFIG_RCU_THROTTLE
	WRITE_ONCE(rcu_throttle_on, m == RCU_RT_THROTTLE);
#endif
	return 0;
}

const char *rcu_rt_mode_desc(char *buf, int len)
{
	int n = 0;

	buf[0] = 0;
#ifdef CONFIG_RCU_KRCUD_OFFLOAD
	if (READ_ONCE(rcu_offload_on) && rcu_offload_available())
		n += snprintf(buf + n, len - n, "%skrcud", n ? "+" : "");
#endif
#ifdef CONFIG_RCU_CALL_RT_DIRECT
	if (READ_ONCE(rcu_direct_on))
		n += snprintf(buf + n, len - n, "%sdirect", n ? "+" : "");
#endif
#ifdef CONFIG_RCU_THROTTLE
	if (READ_ONCE(rcu_throttle_on) && rcu_throttle_available())
		n += snprintf(buf + n, len - n, "%sthrottle", n ? "+" : "");
#endif
	if (!n)
		snprintf(buf, len, "base");
	return buf;
}

void rcu_rt_get_stats(struct rcu_rt_stats *s)
{
	memset(s, 0, sizeof(*s));
	rcu_offload_get_stats(s);
	rcu_throttle_get_stats(s);
	rcu_direct_get_stats(s);
}

unsigned int rcu_rt_save(void)
{
	unsigned int s = 0;

#ifdef CONFIG_RCU_KRCUD_OFFLOAD
	s |= READ_ONCE(rcu_offload_on) << RCU_RT_KRCUD;
#endif
#ifdef CONFIG_RCU_CALL_RT_DIRECT
	s |= READ_ONCE(rcu_direct_on) << RCU_RT_DIRECT;
#endif
#ifdef CONFIG_RCU_THROTTLE
	s |= READ_ONCE(rcu_throttle_on) << RCU_RT_THROTTLE;
#endif
	return s;
}

void rcu_rt_restore(unsigned int s)
{
#ifdef CONFIG_RCU_KRCUD_OFFLOAD
	WRITE_ONCE(rcu_offload_on, !!(s & (1U << RCU_RT_KRCUD)));
#endif
#ifdef CONFIG_RCU_CALL_RT_DIRECT
	WRITE_ONCE(rcu_direct_on, !!(s & (1U << RCU_RT_DIRECT)));
#endif
#ifdef CONFIG_RCU_THROTTLE
	WRITE_ONCE(rcu_throttle_on, !!(s & (1U << RCU_RT_THROTTLE)));
#endif
	(void)s;
}
