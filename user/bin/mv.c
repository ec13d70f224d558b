/* mv from to: rename a file or directory (kernel/fs). */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <qs_fs.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: mv from to\n");
		return 2;
	}
	if (rename(argv[1], argv[2]) < 0) {
		fprintf(stderr, "mv: %s -> %s: %s\n", argv[1], argv[2], strerror(errno));
		return 1;
	}
	return 0;
}
