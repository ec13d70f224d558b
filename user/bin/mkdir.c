/* mkdir dir...: make directories (kernel/fs). */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <qs_fs.h>

int main(int argc, char **argv)
{
	int status = 0;

	for (int i = 1; i < argc; i++) {
		if (mkdir(argv[i], 0755) < 0) {
			fprintf(stderr, "mkdir: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
	}
	return status;
}
