/*
 * The module system calls (include/uapi/module.h, numbers 50-55).
 *
 * Loading, unloading and calling into modules are root's (-EPERM for
 * anyone else, checked before any argument is looked at); lsmod's list,
 * the loader's counters and address lookup are everyone's. The image is
 * copied in whole before the loader sees it, so that it cannot change
 * under the checks (kernel/module/elf_check.c).
 */
#include "internal.h"
#include <syscall.h>
#include <kmalloc.h>
#include <ksyms.h>
#include <rculist.h>
#include <string.h>
#include <errno.h>
#include <cred.h>

/* init_module(image, len, params, errbuf) */
static long sys_init_module(struct pt_regs *r)
{
	const void __user *uimage = (const void __user *)SYSCALL_ARG0(r);
	unsigned long len = SYSCALL_ARG1(r);
	const char __user *uparams = (const char __user *)SYSCALL_ARG2(r);
	char __user *uerr = (char __user *)SYSCALL_ARG3(r);
	char *image = NULL, *params = NULL, *err = NULL;
	long ret;

	if (!capable(CAP_SYS_MODULE))
		return -EPERM;
	if (len == 0 || len > QS_MODULE_IMAGE_MAX) {
		/* Every refusal names its reason, these two included. */
		char why[80];

		snprintf(why, sizeof(why), len ? "an image of %lu bytes, larger than the %lu "
			 "allowed" : "an empty image (0 bytes) is not a module", len,
			 (unsigned long)QS_MODULE_IMAGE_MAX);
		if (uerr)
			copy_to_user(uerr, why, strlen(why) + 1);
		return len ? -EFBIG : -EINVAL;
	}
	ret = -ENOMEM;
	image = kmalloc(len);
	params = kmalloc(QS_MODULE_PARAMS_MAX);
	err = kzalloc(QS_MODULE_ERRLEN);
	if (!image || !params || !err)
		goto out;
	ret = -EFAULT;
	if (copy_from_user(image, uimage, len))
		goto out;
	params[0] = 0;
	if (uparams) {
		ret = strncpy_from_user(params, uparams, QS_MODULE_PARAMS_MAX);
		if (ret < 0)
			goto out;
	}
	ret = load_module(image, len, params, err, QS_MODULE_ERRLEN);
	if (ret && uerr)
		copy_to_user(uerr, err, strlen(err) + 1);	/* a bad errbuf loses only the text */
out:
	kfree(image);
	kfree(params);
	kfree(err);
	return ret;
}
SYSCALL_DEFINE(SYS_init_module, sys_init_module);

/* delete_module(name, flags): flags must be 0. */
static long sys_delete_module(struct pt_regs *r)
{
	char name[QS_MODULE_NAME_LEN];
	long n;

	if (!capable(CAP_SYS_MODULE))
		return -EPERM;
	n = strncpy_from_user(name, (const char __user *)SYSCALL_ARG0(r), sizeof(name));
	if (n < 0)
		return n == -ENAMETOOLONG ? -ENOENT : n;
	return unload_module(name, SYSCALL_ARG1(r), NULL);
}
SYSCALL_DEFINE(SYS_delete_module, sys_delete_module);

static void fill_info(struct module *mod, struct qs_module_info *i)
{
	struct module *m;
	int n = 0;

	memset(i, 0, sizeof(*i));
	strlcpy(i->name, mod->name, sizeof(i->name));
	i->base = mod->base;
	i->size = mod->size;
	i->refs = atomic_read(&mod->refcnt) & ~MODULE_REF_DYING;
	i->nusers = READ_ONCE(mod->nusers);
	i->state = READ_ONCE(mod->state);
	i->nparams = mod->nparams;
	strlcpy(i->description, mod->description, sizeof(i->description));
	/* Its users: the modules whose uses name it. A module's uses are
	 * filled before it is published and freed only after it is unlinked
	 * and a grace period has passed (list.c): readers may walk them. */
	list_for_each_entry_rcu(m, &modules, list) {
		struct module_use *u;

		list_for_each_entry(u, &m->uses, list) {
			if (u->target == mod && n < (int)sizeof(i->users) - QS_MODULE_NAME_LEN - 1)
				n += snprintf(i->users + n, sizeof(i->users) - n, "%s%s", n ? "," : "",
					      m->name);
		}
	}
}

/* query_modules(buf, max) -> how many were written (lsmod). */
static long sys_query_modules(struct pt_regs *r)
{
	struct qs_module_info __user *ubuf = (void __user *)SYSCALL_ARG0(r);
	long max = SYSCALL_ARG1(r), n = 0;
	struct qs_module_info *info;
	struct module *mod;

	if (max < 0 || max > 64)
		return -EINVAL;
	if (!max)
		return 0;
	info = kmalloc(max * sizeof(*info));
	if (!info)
		return -ENOMEM;
	rcu_read_lock();		/* a reader of the module list: no lock */
	list_for_each_entry_rcu(mod, &modules, list) {
		if (n == max)
			break;
		fill_info(mod, &info[n++]);
	}
	rcu_read_unlock();
	if (n && copy_to_user(ubuf, info, n * sizeof(*info)))
		n = -EFAULT;
	kfree(info);
	return n;
}
SYSCALL_DEFINE(SYS_query_modules, sys_query_modules);

/* module_ctl(name, cmd, arg, buf, len): the module's ctl(), holding a reference. */
static long sys_module_ctl(struct pt_regs *r)
{
	char name[QS_MODULE_NAME_LEN];
	long n;

	if (!capable(CAP_SYS_MODULE))
		return -EPERM;
	n = strncpy_from_user(name, (const char __user *)SYSCALL_ARG0(r), sizeof(name));
	if (n < 0)
		return n == -ENAMETOOLONG ? -ENOENT : n;
	return module_ctl_call(name, SYSCALL_ARG1(r), SYSCALL_ARG2(r),
			       (void __user *)SYSCALL_ARG3(r), SYSCALL_ARG4(r));
}
SYSCALL_DEFINE(SYS_module_ctl, sys_module_ctl);

/* ksym_lookup(addr, buf, len) -> the length of the name written. */
static long sys_ksym_lookup(struct pt_regs *r)
{
	char buf[128];
	struct ksym_info i;
	size_t len = SYSCALL_ARG2(r), n;

	if (!ksym_resolve(SYSCALL_ARG0(r), &i))
		return -ENOENT;
	ksym_format(SYSCALL_ARG0(r), buf, sizeof(buf));
	n = strlen(buf);
	if (len <= n)
		return -ERANGE;
	return copy_to_user((char __user *)SYSCALL_ARG1(r), buf, n + 1) ? -EFAULT : (long)n;
}
SYSCALL_DEFINE(SYS_ksym_lookup, sys_ksym_lookup);

/* module_stats(struct qs_module_stats *, size) */
static long sys_module_stats(struct pt_regs *r)
{
	struct qs_module_stats s;

	if (SYSCALL_ARG1(r) != sizeof(s))
		return -EINVAL;
	module_get_stats(&s);
	return copy_to_user((void __user *)SYSCALL_ARG0(r), &s, sizeof(s));
}
SYSCALL_DEFINE(SYS_module_stats, sys_module_stats);
