/* Shared between the validator (lockdep.c) and its reports (lockdep_report.c). */
#ifndef _LOCKDEP_INTERNAL_H
#define _LOCKDEP_INTERNAL_H

#include <lockdep.h>

#define MAX_CLASSES	CONFIG_LOCKDEP_CLASSES
#define MAX_EDGES	CONFIG_LOCKDEP_EDGES

/* How a class has been used; each bit conflicts with its partner (^1). */
enum lock_usage {
	USED_IN_HARDIRQ,	/* taken in a hard-IRQ handler */
	ENABLED_HARDIRQ,	/* taken with interrupts on */
	USED_IN_SOFTIRQ,	/* taken in a softirq */
	ENABLED_SOFTIRQ,	/* taken where softirqs can run */
	NR_USAGE
};

struct lock_usage_at {
	const struct lock_site *site;
	char comm[16];
	int pid;
	unsigned int cpu;
};

struct lock_class {
	const void *key;
	const char *name;
	unsigned int subclass;
	unsigned int usage;			/* 1 << enum lock_usage */
	struct lock_usage_at usage_at[NR_USAGE];	/* where each bit was first seen */
};

/* One recorded order: `from` was held at from_site while `to` was taken at to_site. */
struct lock_edge {
	unsigned short from, to;
	const struct lock_site *from_site, *to_site;
};

extern struct lock_class lock_classes[MAX_CLASSES];
extern struct lock_edge lock_edges[MAX_EDGES];
extern unsigned int nr_lock_edges;

const struct lock_edge *lockdep_find_edge(unsigned int from, unsigned int to);

/* Reports: each starts with lockdep_report_begin(), which wins only once. */
bool lockdep_report_begin(const char *title);
void lockdep_report_end(void);
void lockdep_print_site(const char *prefix, const struct lock_site *site);
void report_circular(const struct held_lock *prev, unsigned int next,
		     const struct lock_site *site, const unsigned short *path, int len);
void report_recursive(const struct held_lock *prev, unsigned int next,
		      const struct lock_site *site);
void report_usage(unsigned int cls, enum lock_usage new, const struct lock_site *site);
void report_bad_unlock(struct lockdep_map *m, const struct lock_site *site);
void report_limit(const char *what, int limit, const char *option);
/* A cached class index no class has: the map is freed or overwritten. */
__noreturn void report_bad_map(const struct lockdep_map *m, unsigned int idx,
			       unsigned int nr_classes, const struct lock_site *site);

#endif
