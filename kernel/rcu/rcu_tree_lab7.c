/*
 * lab7=: whose report of quiescent states up the tree Tree RCU uses, its
 * own (rcu_node_report_qs() in rcu_tree.c) or the one a student writes in
 * Lab 7 (kernel/rcu/lab7_report.c, labs/lab7-tree-rcu). A boot option,
 * not a build option, so that the grader and make test boot the same
 * tree build that Tree RCU's own tests boot (no configuration of its own
 * to build).
 *
 *   lab7=off   Tree RCU's own report everywhere (the default)
 *   lab7=test  the student's in the report's unit tests only
 *              (ktest=rcu_tree_report_*, rcu_tree_report_test.c); the running
 *              tree keeps its own, so a broken report cannot hang the boot
 *              before the tests say what is wrong
 *   lab7=on    the student's in the tests and in the running tree
 *              (rcutorture, the API tests, the traced boot)
 */
#include "rcu_tree.h"
#include <cmdline.h>
#include <printk.h>
#include <string.h>

enum rcu_lab7_mode rcu_lab7_mode = RCU_LAB7_OFF;

static int set_lab7(const char *val)
{
	static const char *const names[] = { "off", "test", "on" };
	unsigned int i;

	for (i = 0; val && i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(val, names[i]) == 0) {
			rcu_lab7_mode = i;
			if (i != RCU_LAB7_OFF)
				printk("rcu (tree): lab7=%s: the report up the tree is "
				       "kernel/rcu/lab7_report.c's%s\n", val,
				       i == RCU_LAB7_ON ? ", in the running tree too" :
				       " in the unit tests; the running tree keeps its own");
			return 0;
		}
	}
	return -1;
}
CMDLINE_PARAM("lab7", set_lab7,
	      "lab7=off|test|on: Tree RCU's report of quiescent states up the tree is "
	      "Lab 7's (kernel/rcu/lab7_report.c) in the unit tests (test) or everywhere (on); "
	      "default off");
