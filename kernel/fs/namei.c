/*
 * Path names: the walk from the root or a working directory one name at a
 * time through d_lookup(), and the namespace operations built on it
 * (create, mkdir, unlink, rmdir, rename) with Linux's errors.
 *
 * The walk takes no filesystem lock: each step is one d_lookup(), which
 * with dcache=rcu takes no lock either, and holds a reference on the
 * directory it stands in so that it cannot be freed under it (a rename may
 * move it meanwhile: the walk then goes on from where it is now, as
 * Linux's did before the sequence-checked walks of later kernels).
 * Namespace changes are serialised by fs_mutex, which a lookup never takes.
 */
#include <fs.h>
#include <string.h>
#include <errno.h>

static bool d_is_dir(const struct dentry *d)
{
	const struct inode *i = READ_ONCE(d->d_inode);

	return i && (i->mode & FS_S_IFMT) == FS_S_IFDIR;
}

static struct dentry *d_parent_get(struct dentry *d)
{
	struct dentry *p;

	spin_lock(&d->d_lock);
	p = dget(d->d_parent);
	spin_unlock(&d->d_lock);
	return p;
}

/* One step from dir (referenced) by name[0..len): the next dentry, referenced. */
static int walk_one(struct dentry *dir, const char *name, unsigned int len,
		    struct dentry **out)
{
	struct dentry *d;

	if (!d_is_dir(dir))
		return -ENOTDIR;
	if (len > FS_NAME_MAX)
		return -ENAMETOOLONG;
	if (fs_permission(READ_ONCE(dir->d_inode), FS_MAY_EXEC))
		return -EACCES;		/* search permission on each directory */
	if (len == 1 && name[0] == '.') {
		*out = dget(dir);
		return 0;
	}
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		*out = d_parent_get(dir);
		return 0;
	}
	d = d_lookup(dir, name, len);
	if (!d)
		return -ENOENT;
	if (!smp_load_acquire(&d->d_inode)) {
		dput(d);		/* a negative dentry: known not to exist */
		return -ENOENT;
	}
	*out = d;
	return 0;
}

/* Did the path have a slash after its last name? Then it must be a directory. */
static bool slashed(const char *last, unsigned int len)
{
	return last[len] == '/';
}

/* A path of slashes only: the root itself, which no call may remove. */
static bool path_is_root(const char *path)
{
	while (*path == '/')
		path++;
	return !*path;
}

/*
 * Walk path up to (not including) its last name; *last and *len name it.
 * *last points into path, so a slash after the last name is still there
 * to see at (*last)[*len] (see slashed()): "a/" names a, which must then
 * be a directory. A path of slashes only ("/") names "." of the root.
 */
static int walk_parent(struct dentry *cwd, const char *path, struct dentry **parent,
		       const char **last, unsigned int *len)
{
	struct dentry *dir;
	const char *s = path;

	if (!*path)
		return -ENOENT;
	if (strnlen(path, FS_PATH_MAX) >= FS_PATH_MAX)
		return -ENAMETOOLONG;
	dir = dget(*s == '/' ? fs_root : cwd);
	for (;;) {
		const char *e;
		struct dentry *next;
		int err;

		while (*s == '/')
			s++;
		e = s;
		while (*e && *e != '/')
			e++;
		const char *t = e;
		while (*t == '/')
			t++;
		if (!*t) {		/* the last name, perhaps with slashes after it */
			if (e == s) {	/* only slashes: "/" */
				s = ".";
				e = s + 1;
			}
			if (e - s > FS_NAME_MAX) {
				dput(dir);
				return -ENAMETOOLONG;
			}
			if (!d_is_dir(dir)) {	/* "file/x": no name can be under a file */
				dput(dir);
				return -ENOTDIR;
			}
			*parent = dir;
			*last = s;
			*len = e - s;
			return 0;
		}
		err = walk_one(dir, s, e - s, &next);
		dput(dir);
		if (err)
			return err;
		dir = next;
		s = e;
	}
}

int path_parent(struct dentry *cwd, const char *path, struct dentry **parent,
		const char **name, unsigned int *len)
{
	return walk_parent(cwd, path, parent, name, len);
}

int path_lookup(struct dentry *cwd, const char *path, struct dentry **out)
{
	struct dentry *dir;
	const char *name;
	unsigned int len;
	int err = walk_parent(cwd, path, &dir, &name, &len);

	if (err)
		return err;
	err = walk_one(dir, name, len, out);
	dput(dir);
	if (!err && slashed(name, len) && !d_is_dir(*out)) {
		dput(*out);
		err = -ENOTDIR;
	}
	return err;
}

static bool is_dot(const char *name, unsigned int len)
{
	return (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.');
}

/* The child of dir called name, referenced, positive or negative; or NULL. */
static struct dentry *child(struct dentry *dir, const char *name, unsigned int len)
{
	return d_lookup_mode(dir, name, len, DCACHE_LOCK);
}

/* Adding or removing a name in dir needs write and search permission. */
static int may_change(struct dentry *dir)
{
	return fs_permission(dir->d_inode, FS_MAY_WRITE | FS_MAY_EXEC);
}

static bool positive(const struct dentry *d)
{
	return d && d->d_inode;
}

/*
 * Give name in dir a new inode of this mode: d, a negative dentry of that
 * name or NULL, turns positive, or a dentry is made. Returns the positive
 * dentry, referenced, in *out; on an error d's reference is dropped.
 * (fs_mutex held)
 */
static int make_child(struct dentry *dir, struct dentry *d, const char *name,
		      unsigned int len, unsigned int mode, struct dentry **out)
{
	struct inode *inode;
	int err = may_change(dir);

	if (!err) {
		err = -ENOMEM;
		inode = ramfs_new_inode(mode);
		if (inode && d) {
			d_instantiate(d, inode);	/* a negative dentry turns positive */
			*out = d;
			return 0;
		}
		if (inode && (*out = d_alloc(dir, name, len, inode)))
			return 0;
		if (inode)
			ramfs_free_inode(inode);
	}
	if (d)
		dput(d);
	return err;
}

int vfs_create(struct dentry *cwd, const char *path, unsigned int mode, bool excl,
	       struct dentry **out)
{
	struct dentry *dir, *d;
	const char *name;
	unsigned int len;
	int err = walk_parent(cwd, path, &dir, &name, &len);

	if (err)
		return err;
	mutex_lock(&fs_mutex);
	err = -ENOENT;
	if (dir != fs_root && dir->d_unhashed)
		goto out;	/* a removed directory: nothing can be created in it */
	err = -EISDIR;
	if (is_dot(name, len) || slashed(name, len))
		goto out;	/* "name/" is a directory, which this does not make */
	d = child(dir, name, len);
	if (positive(d)) {
		err = excl ? -EEXIST : (d_is_dir(d) ? -EISDIR : 0);
		if (err)
			dput(d);
		else
			*out = d;
		goto out;
	}
	err = make_child(dir, d, name, len, FS_S_IFREG | (mode & 07777), out);
out:
	mutex_unlock(&fs_mutex);
	dput(dir);
	return err;
}

int vfs_mkdir(struct dentry *cwd, const char *path, unsigned int mode)
{
	struct dentry *dir, *d;
	const char *name;
	unsigned int len;
	int err = walk_parent(cwd, path, &dir, &name, &len);

	if (err)
		return err;
	mutex_lock(&fs_mutex);
	err = -ENOTDIR;
	if (!d_is_dir(dir))
		goto out;
	err = -ENOENT;
	if (dir != fs_root && dir->d_unhashed)
		goto out;
	err = -EEXIST;
	if (is_dot(name, len))
		goto out;
	d = child(dir, name, len);
	if (positive(d)) {
		dput(d);
		goto out;
	}
	err = make_child(dir, d, name, len, FS_S_IFDIR | (mode & 07777), &d);
	if (!err)
		dput(d);
out:
	mutex_unlock(&fs_mutex);
	dput(dir);
	return err;
}

/* Any positive child? (fs_mutex held) */
static bool dir_has_entries(struct dentry *d)
{
	struct dentry *c;
	bool any = false;

	spin_lock(&dcache_lock);
	list_for_each_entry(c, &d->d_subdirs, d_child) {
		if (!c->d_unhashed && c->d_inode) {
			any = true;
			break;
		}
	}
	spin_unlock(&dcache_lock);
	return any;
}

/* Unhash the negative children of a directory about to go (fs_mutex held). */
static void dir_drop_negatives(struct dentry *d)
{
	for (;;) {
		struct dentry *c, *found = NULL;

		spin_lock(&dcache_lock);
		list_for_each_entry(c, &d->d_subdirs, d_child) {
			if (!c->d_unhashed) {
				/* Hashed: the cache's reference is there. Take ours,
				 * since the shrinker (no fs_mutex) may unhash and
				 * free it as soon as dcache_lock is dropped. */
				found = dget(c);
				break;
			}
		}
		spin_unlock(&dcache_lock);
		if (!found)
			return;
		d_delete(found);	/* nothing if the shrinker got there first */
		dput(found);
	}
}

/* Take d out of the namespace, leaving a negative dentry for its name. */
static void remove_entry(struct dentry *dir, struct dentry *d)
{
	struct dentry *neg;

	d_delete(d);
	neg = d_alloc(dir, d->d_name, d->d_len, NULL);
	if (neg)
		dput(neg);
}

static int do_remove(struct dentry *cwd, const char *path, bool rmdir)
{
	struct dentry *dir, *d;
	const char *name;
	unsigned int len;
	int err = walk_parent(cwd, path, &dir, &name, &len);

	if (err)
		return err;
	mutex_lock(&fs_mutex);
	if (is_dot(name, len)) {
		/* "/" is the root, in use as everyone's; "." cannot go from
		 * itself, and ".." is a directory with this one in it */
		err = !rmdir ? -EISDIR : path_is_root(path) ? -EBUSY :
		      len == 1 ? -EINVAL : -ENOTEMPTY;
		goto out;
	}
	d = child(dir, name, len);
	err = -ENOENT;
	if (!positive(d))
		goto put;
	err = -ENOTDIR;
	if (!rmdir && slashed(name, len) && !d_is_dir(d))
		goto put;
	if ((err = may_change(dir)))
		goto put;
	if (rmdir) {
		err = -ENOTDIR;
		if (!d_is_dir(d))
			goto put;
		err = -ENOTEMPTY;
		if (dir_has_entries(d))
			goto put;
		dir_drop_negatives(d);
	} else if (d_is_dir(d)) {
		err = -EISDIR;
		goto put;
	}
	remove_entry(dir, d);
	err = 0;
put:
	if (d)
		dput(d);
out:
	mutex_unlock(&fs_mutex);
	dput(dir);
	return err;
}

int vfs_unlink(struct dentry *cwd, const char *path)
{
	return do_remove(cwd, path, false);
}

int vfs_rmdir(struct dentry *cwd, const char *path)
{
	return do_remove(cwd, path, true);
}

/* Is d the directory anc or below it? (fs_mutex held: the tree stands still) */
static bool is_below(struct dentry *d, struct dentry *anc)
{
	for (;;) {
		if (d == anc)
			return true;
		if (d == fs_root)
			return false;
		d = d->d_parent;
	}
}

int vfs_rename(struct dentry *cwd, const char *from, const char *to)
{
	struct dentry *odir, *ndir, *od = NULL, *nd = NULL;
	const char *oname, *nname;
	unsigned int olen, nlen;
	char saved[FS_NAME_MAX + 1];
	int err = walk_parent(cwd, from, &odir, &oname, &olen);

	if (err)
		return err;
	err = walk_parent(cwd, to, &ndir, &nname, &nlen);
	if (err) {
		dput(odir);
		return err;
	}
	mutex_lock(&fs_mutex);
	err = -EINVAL;
	if (is_dot(oname, olen) || is_dot(nname, nlen))
		goto out;
	err = -ENOENT;
	od = child(odir, oname, olen);
	if (!positive(od) || !d_is_dir(ndir) || (ndir != fs_root && ndir->d_unhashed))
		goto out;
	err = -ENOTDIR;		/* "name/" on either side asks for a directory */
	if (!d_is_dir(od) && (slashed(oname, olen) || slashed(nname, nlen)))
		goto out;
	if ((err = may_change(odir)) || (err = may_change(ndir)))
		goto out;
	nd = child(ndir, nname, nlen);
	if (nd == od) {
		err = 0;
		goto out;
	}
	if (d_is_dir(od)) {
		err = -EINVAL;		/* a directory moved under itself */
		if (is_below(ndir, od))
			goto out;
		if (positive(nd)) {
			err = -ENOTDIR;
			if (!d_is_dir(nd))
				goto out;
			err = -ENOTEMPTY;
			if (dir_has_entries(nd))
				goto out;
			dir_drop_negatives(nd);
		}
	} else if (positive(nd) && d_is_dir(nd)) {
		err = -EISDIR;
		goto out;
	}
	memcpy(saved, oname, olen);
	/* The target (or its negative dentry) goes as od takes its name. */
	d_move(od, nd, ndir, nname, nlen);
	if (nd)
		dput(nd);
	nd = d_alloc(odir, saved, olen, NULL);	/* the old name: now known absent */
	err = 0;
out:
	if (od)
		dput(od);
	if (nd)
		dput(nd);
	mutex_unlock(&fs_mutex);
	dput(odir);
	dput(ndir);
	return err;
}
