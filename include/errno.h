/* Error numbers, with Linux's values (user programs see the same ones). */
#ifndef _ERRNO_H
#define _ERRNO_H

#include <uapi/errno.h>

#endif
