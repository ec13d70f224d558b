/* copy_from_user() and friends (include/uaccess.h). */
#include <uaccess.h>
#include <kasan.h>
#include <uvm.h>
#include <errno.h>
#include <arch/user.h>

bool access_ok(const void __user *p, size_t n)
{
	unsigned long a = (unsigned long)p;

	return a < USER_TOP && n <= USER_TOP - a;
}

int copy_from_user(void *dst, const void __user *src, size_t n)
{
	if (!access_ok(src, n))
		return -EFAULT;
	kasan_check_write(dst, n);	/* the copy itself is not instrumented */
	/* The one place a user pointer is used as a plain one: the copy
	 * routine's exception table makes a fault there an -EFAULT. */
	return __copy_user(dst, (const void __force *)src, n) ? -EFAULT : 0;
}

int copy_to_user(void __user *dst, const void *src, size_t n)
{
	if (!access_ok(dst, n))
		return -EFAULT;
	kasan_check_read(src, n);
	return __copy_user((void __force *)dst, src, n) ? -EFAULT : 0;
}

long strncpy_from_user(char *dst, const char __user *src, long n)
{
	long len;

	if (n <= 0)
		return -ENAMETOOLONG;
	/* The end of the user half cuts the copy short; a string there faults. */
	if (!access_ok(src, 1))
		return -EFAULT;
	if ((unsigned long)n > USER_TOP - (unsigned long)src)
		n = USER_TOP - (unsigned long)src;
	kasan_check_write(dst, n);
	len = __strncpy_from_user(dst, (const char __force *)src, n);
	if (len < 0)
		return -EFAULT;
	if (len >= n)
		return -ENAMETOOLONG;
	return len;
}
