/*
 * What the filesystem needs to know about the calling process: its
 * working directory (a dentry reference in struct process, taken by
 * fork, dropped at exit) and its uid and gid for the mode bits. Only the
 * process itself changes its cwd (chdir), and fork reads the parent's
 * while the parent is inside fork(), so no lock is needed.
 */
#include "proc.h"
#include <fs.h>

void cwd_clone(struct process *child, struct process *parent)
{
	child->cwd = parent->cwd ? dget(parent->cwd) : NULL;
}

void cwd_put(struct process *p)
{
	struct dentry *d = p->cwd;

	p->cwd = NULL;
	if (d)
		dput(d);
}

struct dentry *fs_cwd_get(void)
{
	struct process *p = current->proc;

	return dget(p && p->cwd ? p->cwd : fs_root);
}

void fs_cwd_set(struct dentry *d)
{
	struct process *p = current->proc;

	if (!p) {
		dput(d);
		return;
	}
	cwd_put(p);
	p->cwd = d;
}

int fs_uid(void)
{
	struct process *p = current->proc;

	return p ? READ_ONCE(p->uid) : 0;
}

int fs_gid(void)
{
	struct process *p = current->proc;

	return p ? READ_ONCE(p->gid) : 0;
}
