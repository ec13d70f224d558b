/*
 * The filesystem's namespace calls (include/uapi/fs.h; the kernel:
 * kernel/fs). Each returns 0 or -1 with errno set. Paths are resolved
 * from the root (no working directory yet).
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

#endif
