/*
 * SysV IPC, common part (POSIX <sys/ipc.h>): key_t, struct ipc_perm, the
 * flags and commands, ftok(). Linux's values and layout
 * (include/uapi/sem.h); ftok() is in user/lib/ipc.c.
 */
#ifndef _USER_SYS_IPC_H
#define _USER_SYS_IPC_H

#include <sys/types.h>
#include "../../../include/uapi/sem.h"	/* the ABI, shared with the kernel */

#define IPC_PRIVATE	((key_t)QS_IPC_PRIVATE)
#define IPC_CREAT	QS_IPC_CREAT
#define IPC_EXCL	QS_IPC_EXCL
#define IPC_NOWAIT	QS_IPC_NOWAIT
#define IPC_RMID	QS_IPC_RMID
#define IPC_SET		QS_IPC_SET
#define IPC_STAT	QS_IPC_STAT
#define IPC_INFO	QS_IPC_INFO

/* glibc's layout and names (__key and __seq are not POSIX). */
struct ipc_perm {
	key_t __key;
	uid_t uid;
	gid_t gid;
	uid_t cuid;
	gid_t cgid;
	mode_t mode;
	unsigned short __seq;
	unsigned short __pad2;
	unsigned long __glibc_reserved1;
	unsigned long __glibc_reserved2;
};

/*
 * A key from a path and a project number. POSIX asks for the same key
 * for the same file and id; Linux builds it from the file's inode and
 * device. The initrd has no inode numbers, so Quiescent uses a hash of
 * the path instead (leading slashes dropped: "/etc/motd" and "etc/motd"
 * are one file): key = (proj_id & 0xff) << 24 | (FNV-1a hash & 0xffffff).
 * The file must exist (ENOENT otherwise). Two different paths can give
 * one key, as two inodes modulo 2^16 can on Linux.
 */
key_t ftok(const char *path, int proj_id);

#endif
