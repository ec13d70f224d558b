/* rmdir dir...: remove empty directories (kernel/fs; rm -r takes a whole tree). */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: rmdir dir...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (rmdir(argv[i]) < 0) {
			fprintf(stderr, "rmdir: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
	}
	return status;
}
