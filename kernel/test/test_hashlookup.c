/*
 * The benchmarklet's table under fire (seed 001 Figure 5's updates, as a
 * stress test):
 *
 *   ktest=hashlookup_stress [hashlookup.stress_ms=N] [hashlookup.quick=1]
 *
 * A small table (16 buckets, chains of 4, so updaters and readers meet
 * on the same chains), a thread on every CPU, a fifth of the operations
 * updates, and each reader lingers on the element it found, checking it
 * again and again (hashlookup.h: hl_use()). Each discipline but ideal
 * runs for hashlookup.stress_ms (default 500, 200 quick).
 *
 * With kmalloc poisoning (every defconfig), an element freed while a
 * reader stood on it reads as 0x6b...: the reader panics with
 * "hashlookup: a rcu reader ... found a freed element" (or faults on the
 * poisoned next pointer it walks). The busted RCU variant, whose
 * call_rcu() frees at once, must end that way
 * (tests/scenarios/hashlookup.toml); every real variant must pass, with
 * every element freed at the end (an element the refcnt discipline or a
 * call_rcu() callback lost would show).
 */
#include <ktest.h>
#include <smp.h>
#include <cmdline.h>
#include "bench/hashlookup.h"

static unsigned long hl_stress_ms;	/* 0: 500, or 200 with hashlookup.quick=1 */
CMDLINE_ULONG("hashlookup.stress_ms", hl_stress_ms, 10, 600000,
	      "hashlookup.stress_ms=N: milliseconds per discipline of hashlookup_stress "
	      "(default 500; 200 quick)");

KTEST(hashlookup_stress)
{
	unsigned long ms = hl_stress_ms ? hl_stress_ms : hl_quick ? 200 : 500;
	unsigned int n = num_online_cpus();
	long live0 = hl_live_elements();

	KT_ASSERT(t, !hl_table_init(16, 4), "no memory for the table");
	for (int d = 0; d < HL_NR; d++) {
		struct hl_cell c = { .disc = d, .ncpu = n, .update_permille = 200, .ms = ms,
				     .hold = 32 };

		if (d == HL_IDEAL)
			continue;
		hl_run_cell(&c);
		KT_EXPECT(t, c.threads == n, "%s: %u of %u threads ran", hl_name[d], c.threads, n);
		KT_EXPECT(t, c.updates && c.ops > c.updates, "%s: %lu operations, %lu updates",
			  hl_name[d], c.ops, c.updates);
		kt_info("%-8s %u CPUs: %lu operations, %lu of them updates, no freed element seen",
			hl_name[d], n, c.ops, c.updates);
	}
	hl_table_free();
	KT_EXPECT(t, hl_live_elements() == live0, "%ld elements never freed",
		  hl_live_elements() - live0);
}
