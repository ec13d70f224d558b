/*
 * ls [dir]: the files of the initrd (the only file system), with their
 * sizes; `ls /lib/modules` lists one directory.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <quiescent.h>

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "";
	struct qs_dirent d;
	size_t len;
	int shown = 0;

	while (*dir == '/')
		dir++;
	len = strlen(dir);
	while (len && dir[len - 1] == '/')
		len--;
	for (int i = 0; qs_readdir(i, &d) == 0; i++) {
		const char *rest = d.name;

		if (len) {
			if (strncmp(d.name, dir, len) || d.name[len] != '/')
				continue;
			rest = d.name + len + 1;
		}
		if (strchr(rest, '/'))
			continue;		/* deeper: shown under its directory */
		printf("%c %8lu  %s%s\n", S_ISDIR(d.mode) ? 'd' : '-', (unsigned long)d.size,
		       rest, S_ISDIR(d.mode) ? "/" : "");
		shown++;
	}
	if (len && !shown) {
		fprintf(stderr, "ls: %s: no such directory\n", argv[1]);
		return 1;
	}
	return 0;
}
