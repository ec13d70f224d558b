/* The module system calls (include/uapi/module.h) and a file reader for insmod. */
#include <sys/module.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <errno.h>

static long ret(long r)
{
	if (r < 0 && r > -4096) {
		errno = -r;
		return -1;
	}
	return r;
}

int init_module(const void *image, size_t len, const char *params, char *errbuf)
{
	return ret(__syscall6(SYS_init_module, (long)image, (long)len, (long)params, (long)errbuf,
			      0, 0));
}

int delete_module(const char *name, unsigned int flags)
{
	return ret(__syscall2(SYS_delete_module, name, flags));
}

int query_modules(struct qs_module_info *buf, int max)
{
	return ret(__syscall2(SYS_query_modules, buf, max));
}

long module_ctl(const char *name, unsigned int cmd, unsigned long arg, void *buf, size_t len)
{
	return ret(__syscall6(SYS_module_ctl, (long)name, cmd, (long)arg, (long)buf, (long)len, 0));
}

int ksym_lookup(unsigned long addr, char *buf, size_t len)
{
	return ret(__syscall3(SYS_ksym_lookup, addr, buf, len));
}

int module_stats(struct qs_module_stats *s)
{
	return ret(__syscall2(SYS_module_stats, s, sizeof(*s)));
}

int read_file(const char *path, void **data, size_t *size)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !(buf = malloc(st.st_size ? st.st_size : 1))) {
		close(fd);
		return -1;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, st.st_size - got);

		if (n <= 0) {
			free(buf);
			close(fd);
			errno = n ? errno : EIO;
			return -1;
		}
		got += n;
	}
	close(fd);
	*data = buf;
	*size = got;
	return 0;
}
