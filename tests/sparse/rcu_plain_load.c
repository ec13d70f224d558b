/*
 * Planted mistakes that `make check` must report (tests/test_check.py):
 * an __rcu pointer loaded and stored plainly, bypassing the accessors, and
 * rcu_dereference() of a pointer nobody declared __rcu; and a system
 * call's user pointer read as if it were the kernel's.
 */
#include <rcupdate.h>
#include <uaccess.h>

struct item {
	int val;
};

struct item __rcu *item_gp;
struct item *item_plain;

int plain_load(void)
{
	struct item *p = item_gp;		/* BUG: no rcu_dereference() */

	return p->val;
}

void plain_store(struct item *p)
{
	item_gp = p;				/* BUG: no rcu_assign_pointer() */
}

int not_annotated(void)
{
	int v;

	rcu_read_lock();
	v = rcu_dereference(item_plain)->val;	/* BUG: item_plain is not __rcu */
	rcu_read_unlock();
	return v;
}

long user_deref(const int __user *uptr)
{
	return *uptr;				/* BUG: not copy_from_user() */
}
