/*
 * Quiescent's own filesystem calls (include/uapi/fs.h; the kernel:
 * kernel/fs). Each returns 0 or -1 with errno set. Relative paths are
 * resolved from the working directory (chdir).
 *
 * The POSIX calls are declared where POSIX puts them: stat() and mkdir()
 * in <sys/stat.h>, rmdir(), unlink(), chdir() and getcwd() in <unistd.h>,
 * rename() in <stdio.h>. This header includes those three, so a program
 * that includes only it still has them.
 */
#ifndef _USER_QS_FS_H
#define _USER_QS_FS_H

#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include "../../include/uapi/fs.h"	/* the ABI, shared with the kernel */

/* An empty regular file (excl: EEXIST if the name is taken). */
int qs_creat(const char *path, mode_t mode, int excl);
/* Up to n entries of the directory open at fd from where the last call
 * stopped: how many (0 at the end), or -1 with errno. */
struct qs_dirent;
int qs_getdents(int fd, struct qs_dirent *d, int n);
/* The dcache's LRU and call_rcu() latency (QS_DCACHE_STATS, arg 1 also
 * resets the latency record), or its shrinker (QS_DCACHE_SHRINK, root). */
long qs_dcache(int op, unsigned long arg, struct qs_dcache_stats *s);

#endif
