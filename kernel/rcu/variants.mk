# Which file implements which RCU variant (the Kconfig choice in
# kernel/rcu/Kconfig). Exactly one variant is compiled: the one whose symbol is y,
# in the manner of Kbuild's obj-$(CONFIG_FOO) lists. Add a variant here,
# in kernel/rcu/Kconfig, and as one file in kernel/rcu/.
RCU_VARIANT_FILES := kernel/rcu/ltimer.c kernel/rcu/tiny.c kernel/rcu/busted.c kernel/rcu/xrcu.c \
		     kernel/rcu/poll.c kernel/rcu/poll_percpu.c kernel/rcu/taskq.c \
		     kernel/rcu/krcud.c kernel/rcu/sched.c kernel/rcu/preempt.c

rcu-variant-$(CONFIG_RCU_LTIMER)	+= kernel/rcu/ltimer.c
rcu-variant-$(CONFIG_RCU_TINY)		+= kernel/rcu/tiny.c
rcu-variant-$(CONFIG_RCU_BUSTED)	+= kernel/rcu/busted.c
rcu-variant-$(CONFIG_RCU_XRCU)		+= kernel/rcu/xrcu.c
rcu-variant-$(CONFIG_RCU_POLL)		+= kernel/rcu/poll.c
rcu-variant-$(CONFIG_RCU_POLL_PERCPU)	+= kernel/rcu/poll_percpu.c
rcu-variant-$(CONFIG_RCU_TASKQ)		+= kernel/rcu/taskq.c
rcu-variant-$(CONFIG_RCU_KRCUD)		+= kernel/rcu/krcud.c
rcu-variant-$(CONFIG_RCU_SCHED)		+= kernel/rcu/sched.c
# rcu-preempt is rcu's algorithm (krcud.c) plus Figure 33's counters (preempt.c).
rcu-variant-$(CONFIG_RCU_PREEMPT)	+= kernel/rcu/krcud.c kernel/rcu/preempt.c

# The realtime options of seed 003 (kernel/rcu/rt.h): one file each, built
# only when configured. kernel/rcu/rt_mode.c (their run-time switches) is
# always built.
RCU_VARIANT_FILES += kernel/rcu/rt_offload.c kernel/rcu/rt_throttle.c kernel/rcu/rt_direct.c
rcu-variant-$(CONFIG_RCU_KRCUD_OFFLOAD)	+= kernel/rcu/rt_offload.c
rcu-variant-$(CONFIG_RCU_THROTTLE)	+= kernel/rcu/rt_throttle.c
rcu-variant-$(CONFIG_RCU_CALL_RT_DIRECT)	+= kernel/rcu/rt_direct.c
