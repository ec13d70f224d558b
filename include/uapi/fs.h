/*
 * The filesystem's namespace calls (kernel/fs/syscalls.c). Paths are
 * resolved from the caller's working directory unless they start with '/'.
 * Errors are Linux's.
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
#define SYS_chdir		116	/* (path) */
#define SYS_getcwd		117	/* (buf, size) -> the length with its NUL; ERANGE, ENOENT */
#define SYS_qs_getdents		118	/* (fd, struct qs_dirent *, n) -> entries read, 0 at the end */

#endif
