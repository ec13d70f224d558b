/*
 * The filesystem's namespace calls (include/uapi/fs.h; the kernel:
 * kernel/fs). Each returns 0 or -1 with errno set. Relative paths are
 * resolved from the working directory (chdir).
 */
#ifndef _USER_QS_FS_H
#define _USER_QS_FS_H

#include <sys/stat.h>
#include "../../include/uapi/fs.h"	/* the ABI, shared with the kernel */

int mkdir(const char *path, mode_t mode);
int rmdir(const char *path);
int unlink(const char *path);
int rename(const char *from, const char *to);
int stat(const char *path, struct stat *st);
/* An empty regular file (excl: EEXIST if the name is taken). */
int qs_creat(const char *path, mode_t mode, int excl);

int chdir(const char *path);
/* The working directory into buf; buf, or NULL with errno (ERANGE, ENOENT). */
char *getcwd(char *buf, size_t size);
/* Up to n entries of the directory open at fd from where the last call
 * stopped: how many (0 at the end), or -1 with errno. */
struct qs_dirent;
int qs_getdents(int fd, struct qs_dirent *d, int n);
/* The dcache's LRU and call_rcu() latency (QS_DCACHE_STATS, arg 1 also
 * resets the latency record), or its shrinker (QS_DCACHE_SHRINK, root). */
long qs_dcache(int op, unsigned long arg, struct qs_dcache_stats *s);

#endif
