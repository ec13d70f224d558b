/*
 * The filesystem's namespace calls (kernel/fs/syscalls.c). Paths are
 * resolved from the root ("a/b" and "/a/b" name the same file: there is
 * no working directory yet). Errors are Linux's.
 */
#ifndef _UAPI_FS_H
#define _UAPI_FS_H

/*   100-119 the filesystem (kernel/fs) */
#define SYS_mkdir		100	/* (path, mode) */
#define SYS_rmdir		101	/* (path) */
#define SYS_unlink		102	/* (path) */
#define SYS_rename		103	/* (from, to) */
#define SYS_stat		104	/* (path, struct qs_stat *) */
#define SYS_qs_creat		105	/* (path, mode, excl): an empty file, no descriptor */

#endif
