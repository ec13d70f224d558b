/* errno and its values (Linux's numbers, as the kernel returns them). */
#ifndef _USER_ERRNO_H
#define _USER_ERRNO_H

extern int errno;

#include "../../include/uapi/errno.h"	/* the values, shared with the kernel */

#endif
