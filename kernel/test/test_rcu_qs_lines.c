/*
 * rcu_qs_lines: the counting facility of kernel/rcu/qs_lines.c works, and
 * the designs write what docs/rcu/qs-lines.md says (counts, never times):
 *   - switched on, a few grace periods produce reports, each of at least
 *     one quiescent state, and no report overflows the set;
 *   - switched off, grace periods add nothing;
 *   - rcu-ltimer: every report writes a shared line (its one mask and
 *     lock, seed 000 section 6's bottleneck), and every CPU writes it in
 *     each grace period;
 *   - Tree RCU: no report writes more than two shared lines a level
 *     (a node's lock and mask, its leaf always, a parent only as that
 *     parent's last child), whatever the CPU count.
 * Variants without quiescent states (busted, the student's skeleton)
 * only check that counting stays off.
 */
#include <ktest.h>
#include <rcupdate.h>
#include <rcu_test.h>
#include <string.h>
#include <smp.h>

#define QS_LINES_GPS		3

/* A lock and a mask a level, if no two share a line; a tree of fanout 2
 * or more over nr_cpu_ids CPUs has at most 1 + ceil(log2 n) levels. */
static unsigned long tree_shared_max(void)
{
	unsigned long levels = 1;

	while ((1UL << (levels - 1)) < nr_cpu_ids)
		levels++;
	return 2 * levels;
}

KTEST(rcu_qs_lines)
{
	struct qs_lines_totals on, off;
	const char *v = rcu_variant_name();
	bool has_qs = strcmp(v, "busted") && strcmp(v, "student");

	qs_lines_enable(true);
	for (int i = 0; i < QS_LINES_GPS; i++)
		synchronize_kernel();
	qs_lines_enable(false);
	qs_lines_read(&on);
	synchronize_kernel();
	qs_lines_read(&off);
	kt_info("%s: %lu reports, %lu quiescent states, %lu private + %lu shared lines, "
		"at most %lu (%lu shared) in one; %lu shared lines, at most %lu writers each "
		"a grace period", v, on.reports, on.qs, on.private_lines, on.shared_lines,
		on.max_lines, on.max_shared, on.shared_lines_seen, on.max_writers);
	KT_EXPECT(t, !memcmp(&on, &off, sizeof(on)),
		  "counted while off: %lu reports then %lu", on.reports, off.reports);
	if (!has_qs)
		return;
	KT_EXPECT(t, on.reports > 0, "no report counted in %d grace periods", QS_LINES_GPS);
	KT_EXPECT(t, on.qs >= on.reports, "%lu quiescent states in %lu reports",
		  on.qs, on.reports);
	KT_EXPECT(t, on.overflows == 0, "%lu marks overflowed one report's set", on.overflows);
	if (!strcmp(v, "ltimer")) {
		KT_EXPECT(t, on.shared_lines >= on.reports,
			  "ltimer: %lu shared lines in %lu reports: each takes the one lock",
			  on.shared_lines, on.reports);
		/* Each CPU reports for itself, in every grace period: the one
		 * mask and lock are written by all of them in each. */
		KT_EXPECT(t, on.max_writers == num_online_cpus(),
			  "ltimer: at most %lu CPUs wrote one shared line in a grace period, "
			  "of %u", on.max_writers, num_online_cpus());
	}
	if (!strcmp(v, "tree")) {
		KT_EXPECT(t, on.shared_lines >= on.reports,
			  "tree: %lu shared lines in %lu reports: each takes its leaf's lock",
			  on.shared_lines, on.reports);
		KT_EXPECT(t, on.max_shared <= tree_shared_max(),
			  "tree: a report wrote %lu shared lines (bound %lu)", on.max_shared,
			  tree_shared_max());
	}
}
