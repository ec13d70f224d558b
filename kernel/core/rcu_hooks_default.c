/*
 * Do-nothing RCU hooks (include/rcu_hooks.h), weak so that kernel/rcu's
 * real ones replace them at link time.
 */
#include <rcu_hooks.h>

__attribute__((weak)) void rcu_hook_context_switch(bool voluntary) {}
__attribute__((weak)) void rcu_hook_tick(enum tick_context ctx) {}
__attribute__((weak)) void rcu_hook_idle(void) {}
__attribute__((weak)) void rcu_hook_cpu_online(unsigned int cpu) {}
__attribute__((weak)) void rcu_hook_init(void) {}
__attribute__((weak)) void rcu_hook_late_init(void) {}
