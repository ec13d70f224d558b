/* stat path...: each file's type, permission bits, size and owner. */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <qs_fs.h>

int main(int argc, char **argv)
{
	int err = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "stat: %s: %s\n", argv[i], strerror(errno));
			err = 1;
			continue;
		}
		printf("%s: %s mode %04o size %lu uid %u gid %u\n", argv[i],
		       S_ISDIR(st.st_mode) ? "directory" : S_ISREG(st.st_mode) ? "file" : "other",
		       (unsigned int)(st.st_mode & 07777), (unsigned long)st.st_size,
		       (unsigned int)st.st_uid, (unsigned int)st.st_gid);
	}
	return err;
}
