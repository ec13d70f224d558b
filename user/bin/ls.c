/*
 * ls [path...]: the entries of each directory (the working directory if
 * none is given) with their type and size, read with qs_getdents() from
 * the filesystem; a file is listed by itself.
 */
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>
#include <quiescent.h>
#include <qs_fs.h>

static void show(const char *name, unsigned int mode, unsigned long size)
{
	printf("%c %8lu  %s%s\n", S_ISDIR(mode) ? 'd' : '-', size, name, S_ISDIR(mode) ? "/" : "");
}

static int list(const char *path)
{
	static struct qs_dirent d[8];
	struct stat st;
	int fd, n;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "ls: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		show(path, st.st_mode, st.st_size);
		return 0;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		fprintf(stderr, "ls: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((n = qs_getdents(fd, d, 8)) > 0) {
		for (int i = 0; i < n; i++)
			show(d[i].name, d[i].mode, d[i].size);
	}
	close(fd);
	if (n < 0) {
		fprintf(stderr, "ls: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int err = 0;

	if (argc < 2)
		return list(".");
	for (int i = 1; i < argc; i++) {
		if (argc > 2)
			printf("%s:\n", argv[i]);
		err |= list(argv[i]);
	}
	return err;
}
