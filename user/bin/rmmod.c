/* rmmod NAME...: unload kernel modules (root only; -EBUSY while one is in use). */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/module.h>

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: rmmod NAME...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (delete_module(argv[i], 0)) {
			fprintf(stderr, "rmmod: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
	return status;
}
