/*
 * rm [-r] [-d] [-f] path...: remove files (kernel/fs).
 *
 *   -r, -R  directories too, with everything in them
 *   -d      empty directories too
 *   -f      a name that does not exist is not an error
 *
 * Without -r or -d a directory is refused ("Is a directory", unlink's
 * answer). rm refuses "/" and a last name of "." or "..", as POSIX has
 * it: removing them would take the tree one stands in.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <quiescent.h>
#include <qs_fs.h>

/* The longest path the kernel takes is one byte less (ENAMETOOLONG). */
#define PATH_BYTES	4096

static int recursive, dirs, force;

static int fail(const char *path)
{
	if (force && errno == ENOENT)
		return 0;
	fprintf(stderr, "rm: %s: %s\n", path, strerror(errno));
	return 1;
}

/*
 * Remove what path (in a buffer of PATH_BYTES, len long) names, and for
 * a directory everything under it first. The directory stays open while
 * its entries go: getdents returns each name that stays exactly once,
 * whatever is removed meanwhile (docs/fs.md), and one dirent buffer does
 * for every level since a name is copied out before going down.
 */
static int remove_tree(char *path, size_t len)
{
	static struct qs_dirent d;
	struct stat st;
	int fd, n, err = 0;

	if (stat(path, &st) < 0)
		return fail(path);
	if (!S_ISDIR(st.st_mode))
		return unlink(path) < 0 ? fail(path) : 0;
	fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fail(path);
	while ((n = qs_getdents(fd, &d, 1)) > 0) {
		size_t l = strlen(d.name);

		if (len + 1 + l >= PATH_BYTES) {
			path[len] = 0;
			fprintf(stderr, "rm: %s/%s: %s\n", path, d.name, strerror(ENAMETOOLONG));
			err = 1;
			continue;
		}
		path[len] = '/';
		memcpy(path + len + 1, d.name, l + 1);
		err |= remove_tree(path, len + 1 + l);
		path[len] = 0;
	}
	if (n < 0)
		err |= fail(path);
	close(fd);
	if (rmdir(path) < 0)
		err |= fail(path);
	return err;
}

/* "/", or a last name of "." or "..": never removed. */
static bool refused(const char *path)
{
	size_t n = strlen(path);
	const char *last;

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n == 1 && path[0] == '/')
		return true;
	last = path + n;
	while (last > path && last[-1] != '/')
		last--;
	return (path + n - last == 1 && last[0] == '.') ||
	       (path + n - last == 2 && last[0] == '.' && last[1] == '.');
}

int main(int argc, char **argv)
{
	static char path[PATH_BYTES];
	int status = 0, i = 1;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		for (const char *o = argv[i] + 1; *o; o++) {
			if (*o == 'r' || *o == 'R') {
				recursive = 1;
			} else if (*o == 'd') {
				dirs = 1;
			} else if (*o == 'f') {
				force = 1;
			} else {
				fprintf(stderr, "rm: -%c: unknown option (usage: rm [-r] [-d] [-f] "
					"path...)\n", *o);
				return 2;
			}
		}
	}
	for (; i < argc; i++) {
		struct stat st;
		size_t len = strlen(argv[i]);

		if (refused(argv[i])) {
			fprintf(stderr, "rm: %s: refusing to remove '/', '.' or '..'\n", argv[i]);
			status = 1;
		} else if (recursive) {
			if (len >= sizeof(path)) {
				errno = ENAMETOOLONG;
				status |= fail(argv[i]);
				continue;
			}
			memcpy(path, argv[i], len + 1);
			status |= remove_tree(path, len);
		} else if ((dirs && stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ?
			    rmdir(argv[i]) : unlink(argv[i])) < 0) {
			status |= fail(argv[i]);
		}
	}
	return status;
}
