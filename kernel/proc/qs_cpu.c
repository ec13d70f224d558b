/*
 * qs_cpu(op, cpu): CPU hotplug from user space (user/bin/cpu, `cpu N
 * off|on`; docs/hotplug.md). Root only for the changes; anyone may ask
 * which CPUs are online. The op codes are spelled-out words, not 0, 1, 2,
 * so that the syscall fuzzer's random arguments do not take CPUs away
 * from the tests that run beside it.
 */
#include "proc.h"
#include <syscall.h>
#include <cpuhotplug.h>
#include <smp.h>
#include <errno.h>

static long sys_qs_cpu(struct pt_regs *r)
{
	unsigned long op = SYSCALL_ARG0(r), cpu = SYSCALL_ARG1(r);
	unsigned long mask = 0;
	unsigned int c;

	switch (op) {
	case QS_CPU_ONLINE:
		for_each_online_cpu(c)
			if (c < 63)
				mask |= 1UL << c;
		return (long)mask;
	case QS_CPU_DOWN:
	case QS_CPU_UP:
		if (current_proc()->uid != 0)
			return -EPERM;
		if (cpu >= nr_cpu_ids)
			return -EINVAL;
		return op == QS_CPU_DOWN ? cpu_down(cpu) : cpu_up(cpu);
	default:
		return -EINVAL;
	}
}
SYSCALL_DEFINE(SYS_qs_cpu, sys_qs_cpu);
