/*
 * Pipes: pipe2(), and the two open files behind its descriptors.
 *
 * A pipe is a ring of QS_PIPE_BUF bytes with a read end and a write end,
 * each an ordinary struct file (include/file.h) in the descriptor table,
 * so dup, dup2, fork, exec's close-on-exec and exit treat them as any
 * other file, and fd_get() finds them under RCU like the rest.
 *
 * The ring's indices run freely (head - tail bytes are buffered) under
 * the pipe's mutex, which a reader or writer holds while it copies to or
 * from user memory (a copy may take a fault and the fix-up; it never
 * sleeps). Sleepers wait on rwait (for data or the last writer's close)
 * and wwait (for room or the last reader's close), interruptibly: kill()
 * ends the wait with EINTR (or the count moved so far).
 *
 * POSIX's rules: a read returns what is there (at most n), waits while
 * the pipe is empty and a writer remains, and returns 0 (end of file)
 * once the last write end is closed. A write of at most QS_PIPE_BUF bytes
 * goes in whole or waits; a longer one goes in pieces. O_NONBLOCK turns
 * every wait into EAGAIN (a write that moved some bytes returns their
 * count). A write with no read end open raises SIGPIPE in the writer,
 * which ends it unless it ignores the signal (signal.c), and returns
 * EPIPE.
 *
 * Lifetime: readers and writers count the open files of each end, not
 * descriptors (fork and dup share a file). The last file_put() of an end
 * runs pipe_release(); when both counts are zero nobody can reach the
 * pipe (every call in progress holds a file reference, so a count), and
 * the ring and the pipe are freed at once. The struct files themselves
 * go through file_put()'s grace period (fd_get() may still try them).
 *
 * The number of pipes in the system is limited by pipe_max (boot option,
 * default 1024, 4 KiB each): past it pipe2() fails with ENFILE, and with
 * ENOMEM when memory runs out; either way nothing stays allocated.
 */
#include "proc.h"
#include <syscall.h>
#include <kmalloc.h>
#include <mutex.h>
#include <cmdline.h>
#include <string.h>

struct pipe {
	struct mutex lock;		/* the ring and both counts */
	unsigned int head, tail;	/* free-running: head - tail bytes are buffered */
	unsigned int readers, writers;	/* open files of each end */
	struct wait_queue_head rwait;	/* readers: data, or no writer left */
	struct wait_queue_head wwait;	/* writers: room, or no reader left */
	char *buf;			/* QS_PIPE_BUF bytes */
};

static atomic_long_t pipes_alive;
static unsigned long pipe_max = 1024;
CMDLINE_ULONG("pipe_max", pipe_max, 2, 1000000,
	      "pipe_max=N: pipes in the system at most, then ENFILE (default 1024)");

long nr_pipes_alive(void)
{
	return atomic_long_read(&pipes_alive);
}

unsigned long pipes_limit(void)
{
	return READ_ONCE(pipe_max);
}

static unsigned int pipe_used(struct pipe *p)
{
	return READ_ONCE(p->head) - READ_ONCE(p->tail);
}

static void pipe_free(struct pipe *p)
{
	kfree(p->buf);
	kfree(p);
	atomic_long_dec(&pipes_alive);
}

/* A pipe with one reader and one writer (their files come next), or NULL. */
static struct pipe *pipe_alloc(long *err)
{
	struct pipe *p;

	if (atomic_long_fetch_add(1, &pipes_alive) >= (long)pipes_limit()) {
		atomic_long_dec(&pipes_alive);
		*err = -ENFILE;
		return NULL;
	}
	p = kzalloc(sizeof(*p));
	if (p)
		p->buf = kmalloc(QS_PIPE_BUF);
	if (!p || !p->buf) {
		kfree(p);
		atomic_long_dec(&pipes_alive);
		*err = -ENOMEM;
		return NULL;
	}
	mutex_init(&p->lock, "pipe");
	init_waitqueue_head(&p->rwait);
	init_waitqueue_head(&p->wwait);
	p->readers = 1;
	p->writers = 1;
	return p;
}

/* One end closed for good: wake the other side; the last one frees the pipe. */
static void pipe_drop(struct pipe *p, bool writer)
{
	bool last;

	mutex_lock(&p->lock);
	/* WRITE_ONCE: a sleeper looks at the counts without the lock (pipe_wait) */
	if (writer) {
		WRITE_ONCE(p->writers, p->writers - 1);
		wake_up_all(&p->rwait);		/* readers see end of file */
	} else {
		WRITE_ONCE(p->readers, p->readers - 1);
		wake_up_all(&p->wwait);		/* writers see EPIPE */
	}
	last = !p->readers && !p->writers;
	mutex_unlock(&p->lock);
	if (last)
		pipe_free(p);
}

static bool is_writer(struct file *f)
{
	return (f->flags & QS_O_ACCMODE) == QS_O_WRONLY;
}

static void pipe_release(struct file *f)
{
	pipe_drop(f->private, is_writer(f));
}

/* Copy n buffered bytes out (n <= used): n, or -EFAULT with nothing consumed. */
static long ring_out(struct pipe *p, char __user *ubuf, unsigned int n)
{
	unsigned int off = p->tail % QS_PIPE_BUF, first = n < QS_PIPE_BUF - off ? n : QS_PIPE_BUF - off;

	if (copy_to_user(ubuf, p->buf + off, first) ||
	    (n > first && copy_to_user(ubuf + first, p->buf, n - first)))
		return -EFAULT;
	WRITE_ONCE(p->tail, p->tail + n);
	return n;
}

/* Copy n bytes in (n <= room): n, or -EFAULT with nothing added. */
static long ring_in(struct pipe *p, const char __user *ubuf, unsigned int n)
{
	unsigned int off = p->head % QS_PIPE_BUF, first = n < QS_PIPE_BUF - off ? n : QS_PIPE_BUF - off;

	if (copy_from_user(p->buf + off, ubuf, first) ||
	    (n > first && copy_from_user(p->buf, ubuf + first, n - first)))
		return -EFAULT;
	WRITE_ONCE(p->head, p->head + n);
	return n;
}

static bool can_read(struct pipe *p)
{
	return pipe_used(p) || !READ_ONCE(p->writers);
}

static bool can_write(struct pipe *p, unsigned int want)
{
	return QS_PIPE_BUF - pipe_used(p) >= want || !READ_ONCE(p->readers);
}

/*
 * Called and returns with p->lock held; drops it to sleep until ready()
 * says so, O_NONBLOCK is set meanwhile, or a signal comes (-EINTR).
 */
static int pipe_wait(struct pipe *p, struct file *f, struct wait_queue_head *wq,
		     bool (*ready)(struct pipe *, unsigned int), unsigned int want)
{
	DEFINE_WAIT(w);
	int err = 0;

	prepare_to_wait(wq, &w, TASK_INTERRUPTIBLE);
	mutex_unlock(&p->lock);
	/* on the queue with our state set: a change after this look wakes us */
	if (!ready(p, want) && !file_nonblock(f) && !signal_pending(current))
		schedule();
	finish_wait(wq, &w);
	if (signal_pending(current))
		err = -EINTR;
	mutex_lock(&p->lock);
	return err;
}

static bool read_ready(struct pipe *p, unsigned int unused)
{
	return can_read(p);
}

static long pipe_read(struct file *f, char __user *ubuf, size_t n)
{
	struct pipe *p = f->private;
	long ret;

	if (!n)
		return 0;
	mutex_lock(&p->lock);
	for (;;) {
		unsigned int used = p->head - p->tail;

		if (used) {
			ret = ring_out(p, ubuf, n < used ? n : used);
			if (ret > 0)
				wake_up_all(&p->wwait);
			break;
		}
		ret = 0;			/* end of file */
		if (!p->writers)
			break;
		ret = -EAGAIN;
		if (file_nonblock(f))
			break;
		if ((ret = pipe_wait(p, f, &p->rwait, read_ready, 0)))
			break;
	}
	mutex_unlock(&p->lock);
	return ret;
}

static long pipe_write(struct file *f, const char __user *ubuf, size_t n)
{
	struct pipe *p = f->private;
	size_t done = 0;
	long ret;

	if (!n)
		return 0;
	mutex_lock(&p->lock);
	for (;;) {
		unsigned int room = QS_PIPE_BUF - (p->head - p->tail);
		/* up to QS_PIPE_BUF bytes go in at once, never interleaved */
		unsigned int want = n <= QS_PIPE_BUF ? n : 1;

		if (!p->readers) {
			signal_self(QS_SIGPIPE);	/* ends us unless ignored */
			ret = -EPIPE;
			break;
		}
		if (room >= want) {
			size_t left = n - done;

			ret = ring_in(p, ubuf + done, left < room ? left : room);
			if (ret < 0)
				break;
			done += ret;
			wake_up_all(&p->rwait);
			if (done == n)
				break;
			continue;
		}
		ret = -EAGAIN;
		if (file_nonblock(f))
			break;
		if ((ret = pipe_wait(p, f, &p->wwait, can_write, want)))
			break;
	}
	mutex_unlock(&p->lock);
	return done ? (long)done : ret;
}

static void pipe_stat(struct file *f, struct qs_stat *st)
{
	st->mode = QS_S_IFIFO | 0600;
	st->size = pipe_used(f->private);	/* bytes buffered */
}

/* F_SETFL set O_NONBLOCK: a sleeper on either side looks again. */
static void pipe_flags_changed(struct file *f)
{
	struct pipe *p = f->private;

	wake_up_all(&p->rwait);
	wake_up_all(&p->wwait);
}

static const struct file_ops pipe_ops = {
	.name		= "pipe",
	.read		= pipe_read,
	.write		= pipe_write,
	.stat		= pipe_stat,
	.flags_changed	= pipe_flags_changed,
	.release	= pipe_release,
};

static long sys_pipe2(struct pt_regs *r)
{
	int __user *ufds = (int __user *)SYSCALL_ARG0(r);
	long flags = SYSCALL_ARG1(r), err = 0;
	unsigned int fl = flags & QS_O_NONBLOCK;
	struct file *rf, *wf;
	struct pipe *p;
	int fds[2];

	if (flags & ~(long)(QS_O_NONBLOCK | QS_O_CLOEXEC))
		return -EINVAL;
	if (!access_ok(ufds, sizeof(fds)))
		return -EFAULT;
	p = pipe_alloc(&err);
	if (!p)
		return err;
	rf = file_alloc(&pipe_ops, p, QS_O_RDONLY | fl);
	if (!rf) {
		pipe_free(p);
		return -ENOMEM;
	}
	wf = file_alloc(&pipe_ops, p, QS_O_WRONLY | fl);
	if (!wf) {
		pipe_drop(p, true);		/* the writer that never was */
		file_put(rf);			/* the reader, and with it the pipe */
		return -ENOMEM;
	}
	fds[0] = fd_install(rf);
	if (fds[0] < 0) {
		file_put(rf);
		file_put(wf);
		return fds[0];
	}
	fds[1] = fd_install(wf);
	if (fds[1] < 0) {
		fd_close(fds[0]);
		file_put(wf);
		return fds[1];
	}
	if (flags & QS_O_CLOEXEC) {
		fd_set_cloexec(fds[0], true);
		fd_set_cloexec(fds[1], true);
	}
	if (copy_to_user(ufds, fds, sizeof(fds))) {
		/* no program can know these descriptors: take them back */
		fd_close(fds[0]);
		fd_close(fds[1]);
		return -EFAULT;
	}
	return 0;
}
SYSCALL_DEFINE(SYS_pipe2, sys_pipe2);
