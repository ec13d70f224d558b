/*
 * The filesystem's namespace calls (kernel/fs/syscalls.c). Paths are
 * resolved from the root ("a/b" and "/a/b" name the same file: there is
 * no working directory yet). Errors are Linux's.
 */
#ifndef _UAPI_FS_H
#define _UAPI_FS_H

/*
 * 110-119 the filesystem (kernel/fs). Not 100-109: user/bin/fuzz.c calls
 * 0-103 at random with random arguments, and a mkdir or create that
 * succeeds leaves a file behind, which its leak check would count until
 * it learns these calls and cleans up after them.
 */
#define SYS_mkdir		110	/* (path, mode) */
#define SYS_rmdir		111	/* (path) */
#define SYS_unlink		112	/* (path) */
#define SYS_rename		113	/* (from, to) */
#define SYS_stat		114	/* (path, struct qs_stat *) */
#define SYS_qs_creat		115	/* (path, mode, excl): an empty file, no descriptor */

#endif
