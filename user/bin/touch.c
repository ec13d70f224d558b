/* touch file...: make empty files where none exist (kernel/fs). */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <qs_fs.h>

int main(int argc, char **argv)
{
	int status = 0;

	for (int i = 1; i < argc; i++) {
		if (qs_creat(argv[i], 0644, 0) < 0) {
			fprintf(stderr, "touch: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
	}
	return status;
}
