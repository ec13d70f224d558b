/*
 * Error numbers, with Linux's values: the one list both the kernel
 * (include/errno.h) and user programs (user/include/errno.h) use, since a
 * system call returns them as -errno.
 */
#ifndef _UAPI_ERRNO_H
#define _UAPI_ERRNO_H

#define EPERM		1
#define ENOENT		2
#define ESRCH		3
#define EINTR		4
#define EIO		5
#define E2BIG		7
#define ENOEXEC		8
#define EBADF		9
#define ECHILD		10
#define EAGAIN		11
#define ENOMEM		12
#define EACCES		13
#define EFAULT		14
#define EBUSY		16
#define EEXIST		17
#define ENODEV		19
#define EINVAL		22
#define ENFILE		23
#define EMFILE		24
#define ENOSPC		28
#define ERANGE		34
#define EDEADLK		35
#define ENAMETOOLONG	36
#define ENOSYS		38
#define EIDRM		43
#define ETIMEDOUT	110

#endif
