/*
 * cpu: CPU hotplug from the shell (docs/hotplug.md).
 *
 *   cpu              list the CPUs and which are online
 *   cpu N off        take CPU N offline (cpu_down(); not CPU 0)
 *   cpu N on         bring it back (cpu_up())
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <quiescent.h>

int main(int argc, char **argv)
{
	long mask, r;
	unsigned long n;

	if (argc == 1) {
		mask = qs_cpu(QS_CPU_ONLINE, 0);
		if (mask < 0) {
			printf("cpu: %s\n", strerror((int)-mask));
			return 1;
		}
		printf("online:");
		for (int c = 0; c < 63; c++)
			if (mask & (1L << c))
				printf(" %d", c);
		printf("\n");
		return 0;
	}
	if (argc != 3 || (strcmp(argv[2], "off") && strcmp(argv[2], "on"))) {
		printf("usage: cpu [N off|on]\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 10);
	r = qs_cpu(strcmp(argv[2], "off") ? QS_CPU_UP : QS_CPU_DOWN, n);
	if (r < 0) {
		printf("cpu %lu %s: %s\n", n, argv[2], strerror((int)-r));
		return 1;
	}
	printf("cpu %lu %s\n", n, strcmp(argv[2], "off") ? "online" : "offline");
	return 0;
}
