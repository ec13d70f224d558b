# Which file implements which RCU variant (the Kconfig choice in
# kernel/rcu/Kconfig). Exactly one variant is compiled: the one whose symbol
# is y, in the manner of Kbuild's obj-$(CONFIG_FOO) lists. A variant <name>
# is kernel/rcu/rcu_<name>.c, CONFIG_RCU_<NAME> and
# configs/rcu_<name>_defconfig (docs/rcu/README.md, "Names"): add a new one
# here, in kernel/rcu/Kconfig and as that one file.
RCU_VARIANT_FILES := kernel/rcu/rcu_ltimer.c kernel/rcu/rcu_tiny.c kernel/rcu/rcu_busted.c \
		     kernel/rcu/rcu_xrcu.c kernel/rcu/rcu_poll.c kernel/rcu/rcu_poll_percpu.c \
		     kernel/rcu/rcu_taskq.c kernel/rcu/rcu_krcud.c kernel/rcu/rcu_sched.c \
		     kernel/rcu/rcu_preempt.c kernel/rcu/rcu_preempt_hotplug.c \
		     kernel/rcu/rcu_student.c kernel/rcu/poll_hooks.c \
		     kernel/rcu/rcu_tree.c kernel/rcu/rcu_tree_exp.c kernel/rcu/rcu_tree_stall.c \
		     kernel/rcu/rcu_tree_lab7.c \
		     kernel/rcu/lab7_report.c kernel/rcu/rcu_tree_report_test.c \
		     kernel/rcu/batch_common.c

rcu-variant-$(CONFIG_RCU_LTIMER)	+= kernel/rcu/rcu_ltimer.c
rcu-variant-$(CONFIG_RCU_TINY)		+= kernel/rcu/rcu_tiny.c
rcu-variant-$(CONFIG_RCU_BUSTED)	+= kernel/rcu/rcu_busted.c
# X-rcu and krcud (rcu-preempt too) share the batch machinery (batch_common.c).
rcu-variant-$(CONFIG_RCU_XRCU)		+= kernel/rcu/rcu_xrcu.c kernel/rcu/batch_common.c
# The rcu-poll family shares its scheduler hooks (poll_hooks.c).
rcu-variant-$(CONFIG_RCU_POLL)		+= kernel/rcu/rcu_poll.c kernel/rcu/poll_hooks.c
rcu-variant-$(CONFIG_RCU_POLL_PERCPU)	+= kernel/rcu/rcu_poll_percpu.c kernel/rcu/poll_hooks.c
rcu-variant-$(CONFIG_RCU_TASKQ)		+= kernel/rcu/rcu_taskq.c
rcu-variant-$(CONFIG_RCU_KRCUD)		+= kernel/rcu/rcu_krcud.c kernel/rcu/batch_common.c
rcu-variant-$(CONFIG_RCU_SCHED)		+= kernel/rcu/rcu_sched.c
# rcu-preempt is krcud's algorithm plus Figure 33's counters (rcu_preempt.c).
rcu-variant-$(CONFIG_RCU_PREEMPT)	+= kernel/rcu/rcu_krcud.c kernel/rcu/rcu_preempt.c \
					   kernel/rcu/rcu_preempt_hotplug.c kernel/rcu/batch_common.c
# Tree RCU (its segmented callback list is rcu_tree_segcblist.h) and its
# expedited grace periods.
rcu-variant-$(CONFIG_RCU_TREE)		+= kernel/rcu/rcu_tree.c kernel/rcu/rcu_tree_exp.c kernel/rcu/rcu_tree_stall.c
# Lab 7's report up the tree, the student's (labs/lab7-tree-rcu), which the
# boot option lab7= swaps in, and the report's unit tests (ktest=rcu_tree_report_*).
rcu-variant-$(CONFIG_RCU_TREE)		+= kernel/rcu/rcu_tree_lab7.c kernel/rcu/lab7_report.c \
					   kernel/rcu/rcu_tree_report_test.c
# Lab 4's skeleton, which the student fills in (labs/lab4-rcu-implementation).
rcu-variant-$(CONFIG_RCU_STUDENT)	+= kernel/rcu/rcu_student.c

# The realtime options of seed 003 (kernel/rcu/rt.h): one file each, built
# only when configured. kernel/rcu/rt_mode.c (their run-time switches) is
# always built.
RCU_VARIANT_FILES += kernel/rcu/rt_offload.c kernel/rcu/rt_throttle.c kernel/rcu/rt_direct.c
rcu-variant-$(CONFIG_RCU_KRCUD_OFFLOAD)	+= kernel/rcu/rt_offload.c
rcu-variant-$(CONFIG_RCU_THROTTLE)	+= kernel/rcu/rt_throttle.c
rcu-variant-$(CONFIG_RCU_CALL_RT_DIRECT)	+= kernel/rcu/rt_direct.c
