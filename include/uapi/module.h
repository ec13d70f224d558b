/*
 * Loadable kernel modules and NMI handlers: the system calls (numbers
 * 50-59, the range include/uapi/quiescent.h keeps for them) and the
 * structures they fill in. Shared by kernel/module/ and user/ (insmod,
 * rmmod, lsmod, modctl, nmitop, modtest); fixed-width types only.
 * docs/modules.md explains the calls.
 */
#ifndef _UAPI_MODULE_H
#define _UAPI_MODULE_H

#include <stdint.h>

/*
 * init_module(image, len, params, errbuf): load the ELF64 relocatable
 * object image[0..len) with the parameter string params ("count=3
 * who=world", may be NULL) and run its init. Root only (-EPERM). On
 * failure, errbuf (QS_MODULE_ERRLEN bytes, may be NULL) gets a sentence
 * saying what was wrong.
 */
#define SYS_init_module		50	/* (image, len, params, errbuf) */
#define SYS_delete_module	51	/* (name, flags): root only; -EBUSY while in use */
#define SYS_query_modules	52	/* (struct qs_module_info *, max) -> count */
#define SYS_module_ctl		53	/* (name, cmd, arg, buf, len): root only; the module's ctl() */
#define SYS_ksym_lookup		54	/* (addr, buf, len) -> length of "func+0x1/0x20 [mod]" */
#define SYS_module_stats	55	/* (struct qs_module_stats *, size) */

#define QS_MODULE_NAME_LEN	32
#define QS_MODULE_ERRLEN	160
#define QS_MODULE_PARAMS_MAX	1024		/* bytes of parameter string, NUL included */
#define QS_MODULE_IMAGE_MAX	(1UL << 20)	/* bytes of .ko */

#define QS_MODULE_COMING	0	/* loaded, init running */
#define QS_MODULE_LIVE		1
#define QS_MODULE_GOING		2	/* exit running, or init failed */

/* One row of lsmod. */
struct qs_module_info {
	char name[QS_MODULE_NAME_LEN];
	uint64_t base;			/* first address (its text) */
	uint64_t size;			/* bytes mapped: text, read-only data, data */
	int32_t refs;			/* references held (try_module_get()) */
	int32_t nusers;			/* loaded modules that use its exports */
	uint32_t state;			/* QS_MODULE_* */
	uint32_t nparams;
	char users[64];			/* their names, comma-separated */
	char description[80];
};

/* The loader's counters (SYS_module_stats). */
struct qs_module_stats {
	uint64_t loaded;		/* on the module list now */
	uint64_t loads, unloads;	/* since boot, successful */
	uint64_t refused;		/* init_module()s refused (bad image, init failed, ...) */
	uint64_t pages;			/* pages of module memory allocated now */
	uint64_t va_pages;		/* pages of the module area in use now */
	uint64_t nmi_handlers;		/* NMI handlers registered now */
	uint64_t nmi_unregisters;	/* unregister_nmi_handler() calls since boot */
	uint64_t nmi_gp_violations;	/* ... that found an old NMI still running (a broken RCU) */
};

/*
 * The sample modules' ctl() commands (modules/hello.c, nmiprof.c), for modctl and
 * nmitop. A module's ctl() runs with a reference on the module held.
 */
#define HELLO_CTL_SPIN		1	/* arg: milliseconds of busy loop in hello's code */
#define HELLO_CTL_BACKTRACE	2	/* dump_stack() from inside the module */
#define HELLO_CTL_SLEEP		3	/* arg: milliseconds asleep, holding the reference */
#define HELLO_CTL_COUNT		4	/* returns the count parameter */
#define HELLO_CTL_OOPS		5	/* a NULL write in the module: a panic naming [hello] */

#define NMIPROF_CTL_START	1	/* arg: NMIs per second on every CPU */
#define NMIPROF_CTL_STOP	2
#define NMIPROF_CTL_RESET	3
#define NMIPROF_CTL_READ	4	/* buf: struct nmiprof_report, len: its size */

struct nmiprof_entry {
	uint64_t addr;			/* the function's first address */
	uint64_t samples;
	char name[64];			/* "function" or "function [module]" */
};

/* NMIPROF_CTL_READ: the totals and the top functions, most sampled first. */
struct nmiprof_report {
	uint64_t samples;		/* NMIs taken, all CPUs */
	uint64_t user;			/* of which in user mode */
	uint64_t idle;			/* of which in the idle loop */
	uint64_t lost;			/* kernel samples with no room in the histogram */
	uint64_t unknown;		/* kernel samples outside any known function */
	uint32_t hz, ncpus;
	uint32_t nentries, pad;
	uint64_t cpu_samples[16];
	struct nmiprof_entry entries[32];
};

#endif
