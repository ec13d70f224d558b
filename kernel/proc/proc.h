/*
 * kernel/proc internals: processes, the system-call table, the initrd.
 * (Layer 6 of docs/layers.md: it uses the scheduler, memory and the RCU API,
 * and nothing uses it but user programs.)
 */
#ifndef _KERNEL_PROC_PROC_H
#define _KERNEL_PROC_PROC_H

#include <types.h>
#include <list.h>
#include <wait.h>
#include <rcupdate.h>
#include <sched.h>
#include <uvm.h>
#include <uaccess.h>
#include <arch/irq.h>
#include <uapi/quiescent.h>
#include <file.h>
#include <initrd.h>
#include <upcalls.h>	/* the hooks this layer provides */

/*
 * A process: one user task, its address space, its place in the process
 * tree. The task list walk of `ps` reads all_processes under
 * rcu_read_lock() (seed 001's get_pid_list example): writers hold
 * proc_lock and use list_add_tail_rcu()/list_del_rcu(); a reaped process
 * is freed (with its task reference) by call_rcu(), after every reader
 * that might still stand on it has finished.
 */
struct process {
	struct list_head list;		/* all_processes (RCU readers) */
	struct rcu_head rcu;
	unsigned long magic;		/* PROC_MAGIC while allocated (poison catches) */
	struct task *task;		/* holds a reference until freed */
	int pid, ppid, uid, gid;	/* uid and gid are also the effective ids */
	struct process *parent;		/* proc_lock, as are the three below */
	struct list_head children;
	struct list_head sibling;
	bool zombie;
	int exit_status;		/* waitpid() encoding (QS_W_*) */
	unsigned long child_events;	/* a child became a zombie */
	struct wait_queue_head child_wait;
	struct uvm *vm;			/* NULL once it has exited */
	struct pt_regs entry_regs;	/* first user registers (fork, init) */
	struct files files;		/* open file descriptors (file.c) */
	struct dentry *cwd;		/* working directory, referenced; NULL: / (fs_cwd.c) */
	int kill_signal;		/* kill() asked this process to end (proc_signal) */
	u64 sig_ignored;		/* bit sig - 1: signal(sig, SIG_IGN) (signal.c) */
	struct sem_undo *sem_undo;	/* SEM_UNDO adjustments (kernel/ipc/sem_undo.c) */
	char name[QS_COMM_LEN];
};

#define MAX_PROCESSES	128
#define PROC_MAGIC	0x70c5c0ffee70c5c0UL

static inline struct process *current_proc(void)
{
	return current->proc;
}

/* process.c */
long proc_fork(struct pt_regs *regs);
__noreturn void proc_exit(int wstatus);
long proc_wait(int pid, int __user *status, int options);
long proc_list(struct qs_procinfo __user *buf, int max);
struct task *proc_find_task(int pid, int *uid);	/* a reference and the uid, or NULL */
/* kill(): as sender_uid, record sig (0: only check) for process pid. */
long proc_signal(int pid, int sig, int sender_uid);
long nr_processes(void);		/* alive or zombie */
long nr_processes_freeing(void);	/* reaped, memory waits for a grace period */
long nr_fork_rcu_retries(void);		/* forks that had to wait for those */
/* The first process: a kernel thread that becomes /bin/init. */
int proc_start_init(const char *const argv[], int argc);

/* exec.c */
long proc_execve(struct pt_regs *regs, const char __user *path,
		 const char __user *const __user *argv);
/* Load path into a fresh address space: the registers to start it with. */
int exec_load(const char *path, const char *const argv[], int argc,
	      struct uvm **vmp, struct pt_regs *regs);

/* initrd.c: include/initrd.h */

/* file.c */
void files_init_console(struct files *fs);	/* fds 0, 1, 2: the console */
int files_clone(struct files *dst, struct files *src);
void files_close_all(struct files *fs);
/* fs_cwd.c: the child shares the parent's working directory; exit drops it */
void cwd_clone(struct process *child, struct process *parent);
void cwd_put(struct process *p);
void files_close_on_exec(struct files *fs);
extern struct file console_file;

/* signal.c */
bool sig_ignored(struct process *p, int sig);
/* The kernel raises sig in the calling process (SIGPIPE): it ends on its way out, unless ignored. */
void signal_self(int sig);

/* pipe.c */
long nr_pipes_alive(void);
unsigned long pipes_limit(void);

/* tty.c */
long tty_read(char __user *buf, size_t n);
long tty_write(const char __user *buf, size_t n);

/* syscall.c */
long syscall_count(void);

#endif
