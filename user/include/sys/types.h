#ifndef _USER_SYS_TYPES_H
#define _USER_SYS_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef int pid_t;
typedef int uid_t;
typedef int gid_t;
typedef unsigned int mode_t;
typedef long ssize_t;
typedef long off_t;
typedef long time_t;
typedef int key_t;		/* SysV IPC keys (sys/ipc.h) */

#endif
