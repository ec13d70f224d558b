/*
 * Loadable kernel modules from user space (user/lib/module.c): the calls
 * of include/uapi/module.h with errno set and -1 on failure, as Linux's
 * libc wraps init_module(2) and delete_module(2).
 */
#ifndef _USER_SYS_MODULE_H
#define _USER_SYS_MODULE_H

#include <stddef.h>
#include "../../../include/uapi/module.h"	/* the ABI, shared with the kernel */

/* errbuf: QS_MODULE_ERRLEN bytes (or NULL), filled with why on failure. */
int init_module(const void *image, size_t len, const char *params, char *errbuf);
int delete_module(const char *name, unsigned int flags);
int query_modules(struct qs_module_info *buf, int max);
long module_ctl(const char *name, unsigned int cmd, unsigned long arg, void *buf, size_t len);
int ksym_lookup(unsigned long addr, char *buf, size_t len);
int module_stats(struct qs_module_stats *s);

/* Read a whole file into malloc'd memory (insmod, modtest): 0 or -1. */
int read_file(const char *path, void **data, size_t *size);

#endif
