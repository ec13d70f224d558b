/*
 * lsmod [-v]: the loaded modules, from the kernel's RCU-protected module
 * list (query_modules(), a lock-free reader): name, size, references held,
 * the modules that use it, its state; -v adds its address and description.
 */
#include <stdio.h>
#include <string.h>
#include <sys/module.h>

static const char *state_name(unsigned int s)
{
	return s == QS_MODULE_LIVE ? "Live" : s == QS_MODULE_COMING ? "Loading" : "Unloading";
}

int main(int argc, char **argv)
{
	static struct qs_module_info m[64];
	int verbose = argc > 1 && !strcmp(argv[1], "-v");
	int n = query_modules(m, 64);

	if (n < 0) {
		perror("lsmod");
		return 1;
	}
	printf("%-20s %8s %5s %-9s  %s\n", "Module", "Size", "Refs", "State", "Used by");
	for (int i = 0; i < n; i++) {
		printf("%-20s %8lu %5d %-9s  %d%s%s\n", m[i].name, (unsigned long)m[i].size, m[i].refs,
		       state_name(m[i].state), m[i].nusers, m[i].users[0] ? " " : "", m[i].users);
		if (verbose)
			printf("    at 0x%lx, %u parameters: %s\n", (unsigned long)m[i].base, m[i].nparams,
			       m[i].description);
	}
	return 0;
}
