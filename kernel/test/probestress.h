/*
 * The probe site through which the Tasks RCU unload stress calls into a
 * module (kernel/test/test_rcu_tasks_probe.c, modules/probestress.c).
 */
#ifndef _PROBESTRESS_H
#define _PROBESTRESS_H

#include <probe.h>

#define PROBESTRESS_MAGIC	0x50524f4245000000UL	/* "PROBE" */
#define PROBESTRESS_TABLE	64
#define PROBESTRESS_ROUNDS	40	/* each with a 100 us delay: 4 ms in the handler */

extern struct probe_site probestress_site;

#endif
