# Which files implement which RCU variant, in the manner of Kbuild's
# obj-$(CONFIG_FOO) lists: exactly one variant is compiled, the one whose
# symbol is y. The variants are the entries of kernel/rcu/Kconfig's choice
# and nothing else: the line for each one's own file,
#   rcu-variant-$(CONFIG_RCU_<NAME>) += kernel/rcu/rcu_<stem>.c
# is in $(RCU_CHOICE_MK), which tools/variants.py writes from that choice
# (the Makefile includes it). Here are only the files a variant shares with
# another or adds to its own. docs/rcu/README.md ("Adding a variant") says
# what else a new variant needs.

# X-rcu and krcud (rcu-preempt too) share the batch machinery (batch_common.c).
rcu-variant-$(CONFIG_RCU_XRCU)		+= kernel/rcu/batch_common.c
# The rcu-poll family shares its scheduler hooks (poll_hooks.c).
rcu-variant-$(CONFIG_RCU_POLL)		+= kernel/rcu/poll_hooks.c
rcu-variant-$(CONFIG_RCU_POLL_PERCPU)	+= kernel/rcu/poll_hooks.c
rcu-variant-$(CONFIG_RCU_KRCUD)		+= kernel/rcu/batch_common.c
# rcu-preempt is krcud's algorithm plus Figure 33's counters (rcu_preempt.c).
rcu-variant-$(CONFIG_RCU_PREEMPT)	+= kernel/rcu/rcu_krcud.c kernel/rcu/rcu_preempt_hotplug.c \
					   kernel/rcu/batch_common.c
# Tree RCU (its segmented callback list is rcu_tree_segcblist.h), its
# expedited grace periods and its stall warning.
rcu-variant-$(CONFIG_RCU_TREE)		+= kernel/rcu/rcu_tree_exp.c kernel/rcu/rcu_tree_stall.c
# Lab 7's report up the tree, the student's (labs/lab7-tree-rcu), which the
# boot option lab7= swaps in, and the report's unit tests (ktest=rcu_tree_report_*).
rcu-variant-$(CONFIG_RCU_TREE)		+= kernel/rcu/rcu_tree_lab7.c kernel/rcu/lab7_report.c \
					   kernel/rcu/rcu_tree_report_test.c

# The realtime options of seed 003 (kernel/rcu/rt.h): one file each, built
# only when configured. kernel/rcu/rt_mode.c (their run-time switches) is
# always built.
rcu-variant-$(CONFIG_RCU_KRCUD_OFFLOAD)	+= kernel/rcu/rt_offload.c
rcu-variant-$(CONFIG_RCU_THROTTLE)	+= kernel/rcu/rt_throttle.c
rcu-variant-$(CONFIG_RCU_CALL_RT_DIRECT)	+= kernel/rcu/rt_direct.c

# Every file named above is some variant's or option's, kept out of the
# sources every kernel compiles (the Makefile's C_SRCS): those of a symbol
# that is not y gather in rcu-variant-, since auto.conf leaves an unset
# bool out. $(sort) drops the files two variants share.
RCU_VARIANT_FILES := $(sort $(rcu-variant-) $(rcu-variant-n) $(rcu-variant-y))
