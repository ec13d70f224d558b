/* rm [-d] path...: remove files (-d: empty directories too; kernel/fs). */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <qs_fs.h>

int main(int argc, char **argv)
{
	int status = 0, i = 1, dirs = 0;

	if (argc > 1 && !strcmp(argv[1], "-d")) {
		dirs = 1;
		i++;
	}
	for (; i < argc; i++) {
		struct stat st;
		int r = dirs && stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ?
			rmdir(argv[i]) : unlink(argv[i]);

		if (r < 0) {
			fprintf(stderr, "rm: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
	}
	return status;
}
