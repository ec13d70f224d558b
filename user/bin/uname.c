/* uname: the system, and what a lab needs to know it ran (RCU variant, HZ, CPUs). */
#include <stdio.h>
#include <sys/utsname.h>

int main(int argc, char **argv)
{
	struct utsname u;

	if (uname(&u)) {
		perror("uname");
		return 1;
	}
	printf("%s %s %s %s %s\n", u.sysname, u.nodename, u.release, u.version, u.machine);
	printf("rcu=%s preemption=%s HZ=%d cpus=%d (max %d) tsc=%lu kHz\n", u.rcu_variant,
	       u.preempt, u.hz, u.ncpus, u.max_cpus, u.tsc_khz);
	return 0;
}
