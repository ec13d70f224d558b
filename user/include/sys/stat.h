/* fstat() (user/lib/file.c); stat() and mkdir() (user/lib/fs.c). */
#ifndef _USER_SYS_STAT_H
#define _USER_SYS_STAT_H

#include <sys/types.h>
#include <quiescent.h>

#define S_IFMT		QS_S_IFMT
#define S_IFSOCK	QS_S_IFSOCK
#define S_IFREG		QS_S_IFREG
#define S_IFDIR		QS_S_IFDIR
#define S_IFCHR		QS_S_IFCHR
#define S_IFIFO		QS_S_IFIFO
#define S_ISREG(m)	(((m) & S_IFMT) == S_IFREG)
#define S_ISDIR(m)	(((m) & S_IFMT) == S_IFDIR)
#define S_ISCHR(m)	(((m) & S_IFMT) == S_IFCHR)
#define S_ISSOCK(m)	(((m) & S_IFMT) == S_IFSOCK)
#define S_ISFIFO(m)	(((m) & S_IFMT) == S_IFIFO)

struct stat {
	off_t st_size;
	mode_t st_mode;
	uid_t st_uid;
	gid_t st_gid;
};

int fstat(int fd, struct stat *st);
int stat(const char *path, struct stat *st);
int mkdir(const char *path, mode_t mode);

#endif
