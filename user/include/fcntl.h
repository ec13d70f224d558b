/* open() and fcntl() (user/lib/file.c): Linux's flag values. */
#ifndef _USER_FCNTL_H
#define _USER_FCNTL_H

#include <sys/types.h>
#include <quiescent.h>

#define O_RDONLY	QS_O_RDONLY
#define O_WRONLY	QS_O_WRONLY
#define O_RDWR		QS_O_RDWR
#define O_ACCMODE	QS_O_ACCMODE
#define O_CREAT		QS_O_CREAT
#define O_EXCL		QS_O_EXCL
#define O_TRUNC		QS_O_TRUNC
#define O_APPEND	QS_O_APPEND
#define O_NONBLOCK	QS_O_NONBLOCK
#define O_DIRECTORY	QS_O_DIRECTORY
#define O_CLOEXEC	QS_O_CLOEXEC

#define F_DUPFD		QS_F_DUPFD
#define F_GETFD		QS_F_GETFD
#define F_SETFD		QS_F_SETFD
#define F_GETFL		QS_F_GETFL
#define F_SETFL		QS_F_SETFL
#define FD_CLOEXEC	QS_FD_CLOEXEC

int open(const char *path, int flags, ...);
int fcntl(int fd, int cmd, ...);

#endif
