/* The filesystem's namespace calls (qs_fs.h; the kernel: kernel/fs). */
#include <qs_fs.h>
#include <sys/syscall.h>
#include <errno.h>

static long ret(long r)
{
	if (r < 0 && r > -4096) {
		errno = -r;
		return -1;
	}
	return r;
}

int mkdir(const char *path, mode_t mode)	{ return ret(__syscall2(SYS_mkdir, path, mode)); }
int rmdir(const char *path)			{ return ret(__syscall1(SYS_rmdir, path)); }
int unlink(const char *path)			{ return ret(__syscall1(SYS_unlink, path)); }
int rename(const char *from, const char *to)	{ return ret(__syscall2(SYS_rename, from, to)); }
int qs_creat(const char *path, mode_t mode, int excl)
{
	return ret(__syscall3(SYS_qs_creat, path, mode, excl));
}

int stat(const char *path, struct stat *st)
{
	struct qs_stat s;
	long r = __syscall2(SYS_stat, path, &s);

	if (r < 0)
		return ret(r);
	st->st_size = s.size;
	st->st_mode = s.mode;
	st->st_uid = s.uid;
	st->st_gid = s.gid;
	return 0;
}

int chdir(const char *path)			{ return ret(__syscall1(SYS_chdir, path)); }

char *getcwd(char *buf, size_t size)
{
	return ret(__syscall2(SYS_getcwd, buf, size)) < 0 ? NULL : buf;
}

int qs_getdents(int fd, struct qs_dirent *d, int n)
{
	return ret(__syscall3(SYS_qs_getdents, fd, d, n));
}

long qs_dcache(int op, unsigned long arg, struct qs_dcache_stats *s)
{
	return ret(__syscall3(SYS_qs_dcache, op, arg, s));
}
