/*
 * psstorm: a ps/kill storm against a fork/exit storm (seed 001 Table 4,
 * the task list on RCU; docs/tasklist.md).
 *
 *   psstorm [-s secs] [-w walkers] [-f forkers] [-k killers] [-t kthreaders] [-r reapers]
 *   psstorm -b [-s secs]     the benchmark: tasklist=rcu, then =lock, one boot
 *
 * For secs seconds (default 3), at once:
 *   walkers    loop `ps -a`'s system call (qs_ps with QS_PS_KTHREADS: every
 *              process, then every kernel thread from the task list) and
 *              kill(pid, 0) every process it listed, which by then may
 *              have exited: the kill looks the pid up in the PID hash;
 *              a kernel thread named psstorm is a forked child's task
 *              published before its process (fault=task_published:N)
 *   forkers    fork a child that exits at once and reap it, as fast as
 *              they can: the process list and PID hash change under the
 *              walkers, and every reap frees a process and a task
 *              through call_rcu()
 *   killers    fork a short-lived child and SIGKILL it, racing its own exit
 *   kthreaders create kernel threads that exit and others that are
 *              kthread_stop()ped (qs_tasklist(QS_TASKLIST_KTHREADS))
 *   reapers    pinned to their CPU under SCHED_FIFO: fork a child that
 *              drops to SCHED_OTHER and exits (on a preemptible kernel the
 *              parent's wake-up preempts it inside its exit), reap it,
 *              spin through a grace period, fork a bystander, and SIGKILL
 *              the reaped pid: the kill must answer ESRCH and the
 *              bystander must exit by itself. A reaped process whose task
 *              the PID hash still held would be freed and reused by the
 *              bystander's fork, and the signal would go to the bystander
 * Boot with fault=ps_entry:N (and kmalloc poisoning, on in every
 * defconfig) to make each ps walk stand on every entry: on a real RCU
 * variant nothing it stands on is freed, on the busted one the kernel
 * panics with "tasklist: a reader ... found a freed ...".
 * Afterwards the kernel's allocations (kmalloc objects and bytes, task
 * structs, processes, user pages, open files) must be back at their
 * baseline, after rcu_barrier() (qs_stats' QS_STATS_SYNC).
 *
 * -b prints, for each mode, a BENCH line with the ps latency (mean and
 * worst of one walker's qs_ps calls, one walk a millisecond) and the
 * fork rate (of the forkers, kernel threads beside) while all run. Children send their counts to
 * the parent in one UDP datagram each on the loopback interface.
 * Root only (the kernel-thread call and the mode switch are).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <quiescent.h>
#include <sched.h>

#define REPORT_PORT	7407

static unsigned long pace_us;	/* -b: the walker sleeps this long between walks */
#define MAX_KIDS	32

enum role { WALKER, FORKER, KILLER, KTHREADER, REAPER, NR_ROLES };

struct result {
	int role, idx, failed;
	uint64_t ops;		/* walks, forks, kills, kernel threads, reaped kills */
	uint64_t ops2;		/* walker: kill(pid, 0) that found it; killer: kills that landed */
	uint64_t ops3;		/* walker: kill(pid, 0) too late (ESRCH); forker: EAGAIN */
	uint64_t ns_sum, ns_max;	/* walker: qs_ps() time */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void report(struct result *r)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	to.sin_port = htons(REPORT_PORT);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || sendto(fd, r, sizeof(*r), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		perror("psstorm: report");
	close(fd);
}

static void walker(struct result *r, uint64_t end)
{
	static struct qs_procinfo p[256];	/* what the shell's `ps -a` asks for */
	pid_t me = getpid();

	while (now_ns() < end) {
		uint64_t t0 = now_ns(), ns;
		int n = qs_ps(p, 256 | QS_PS_KTHREADS);

		ns = now_ns() - t0;
		if (n < 0) {
			perror("psstorm: walker: qs_ps");
			r->failed = 1;
			return;
		}
		r->ops++;
		r->ns_sum += ns;
		if (ns > r->ns_max)
			r->ns_max = ns;
		for (int i = 0; i < n; i++) {
			/* Our children carry our name: listed without a parent,
			 * one is a process's task published before its process. */
			if (p[i].ppid == 0 && !strcmp(p[i].name, "psstorm")) {
				/* Stamped on the console's clock (both are ktime_get_ns()):
				 * a user program's line carries no time of its own, and a
				 * replay needs one to stop before it. */
				uint64_t at = now_ns();

				printf("psstorm: walker: at %lu.%06lu s, pid %d listed as a kernel "
				       "thread: a task published before its process\n",
				       (unsigned long)(at / 1000000000ull),
				       (unsigned long)(at % 1000000000ull / 1000), p[i].pid);
				r->failed = 1;
			}
			if (p[i].ppid == 0 || p[i].pid == me)
				continue;	/* kernel threads and init take no kill(0) from us */
			if (kill(p[i].pid, 0) == 0)
				r->ops2++;
			else if (errno == ESRCH)
				r->ops3++;	/* it exited after the walk listed it */
			else {
				printf("psstorm: walker: kill(%d, 0): %s\n", p[i].pid, strerror(errno));
				r->failed = 1;
			}
		}
		/*
		 * A monitoring tool, not a spinner: the forkers get the CPU.
		 * The benchmark paces it (a walk a millisecond, as the
		 * in-kernel bench_tasklist does), so that the fork rate
		 * measures the walk's hold on the task list, not how many
		 * walks a faster mode squeezes onto the CPUs.
		 */
		if (pace_us)
			usleep(pace_us);
		else
			sched_yield();
	}
}

static void forker(struct result *r, uint64_t end)
{
	while (now_ns() < end) {
		int st;
		pid_t pid = fork();

		if (pid == 0)
			_exit(7);
		if (pid < 0) {
			if (errno != EAGAIN) {
				perror("psstorm: forker: fork");
				r->failed = 1;
				return;
			}
			r->ops3++;	/* the process limit: others' children not yet reaped */
			sched_yield();
			continue;
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 7) {
			printf("psstorm: forker: child %d: status %#x\n", pid, st);
			r->failed = 1;
			return;
		}
		r->ops++;
	}
}

static void killer(struct result *r, uint64_t end)
{
	unsigned long seed = (unsigned long)getpid() * 2654435761u;

	while (now_ns() < end) {
		int st, spins;
		pid_t pid;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		spins = (int)((seed >> 33) % 64);
		pid = fork();
		if (pid == 0) {
			for (int i = 0; i < spins; i++)
				getpid();
			_exit(0);
		}
		if (pid < 0) {
			if (errno == EAGAIN) {
				sched_yield();
				continue;
			}
			perror("psstorm: killer: fork");
			r->failed = 1;
			return;
		}
		for (int i = 0; i < (int)((seed >> 40) % 64); i++)
			getpid();
		if (kill(pid, SIGKILL) < 0 && errno != ESRCH) {
			printf("psstorm: killer: kill(%d): %s\n", pid, strerror(errno));
			r->failed = 1;
		}
		if (waitpid(pid, &st, 0) != pid ||
		    !(WIFEXITED(st) ? WEXITSTATUS(st) == 0 : WTERMSIG(st) == SIGKILL)) {
			printf("psstorm: killer: child %d: status %#x\n", pid, st);
			r->failed = 1;
			return;
		}
		r->ops++;
		if (WIFSIGNALED(st))
			r->ops2++;	/* the kill landed before the child's exit */
	}
}

static void reaper(struct result *r, uint64_t end)
{
	struct sched_param fifo = { .sched_priority = 10 }, normal = { .sched_priority = 0 };
	cpu_set_t here;

	CPU_ZERO(&here);
	CPU_SET(sched_getcpu(), &here);
	if (sched_setaffinity(0, sizeof(here), &here) < 0 ||
	    sched_setscheduler(0, SCHED_FIFO, &fifo) < 0) {
		perror("psstorm: reaper: pin and SCHED_FIFO");
		r->failed = 1;
		return;
	}
	while (now_ns() < end) {
		struct qs_stats st0, st1;
		int st, rc, err;
		pid_t gone = fork(), bystander;

		if (gone == 0) {
			sched_setscheduler(0, SCHED_OTHER, &normal);
			_exit(0);
		}
		if (gone < 0) {
			if (errno == EAGAIN) {
				usleep(1000);
				continue;
			}
			perror("psstorm: reaper: fork");
			r->failed = 1;
			return;
		}
		if (waitpid(gone, &st, 0) != gone) {
			perror("psstorm: reaper: waitpid");
			r->failed = 1;
			return;
		}
		/*
		 * Spin in user mode, not asleep, until every callback queued
		 * so far (the reaped process's free among them) has run: this
		 * CPU's user-mode ticks are quiescent states, and the child
		 * that exited, which our wake-up preempted, stays off the CPU
		 * wherever its exit was.
		 */
		qs_stats(&st0, 0);
		for (uint64_t until = now_ns() + 1000000000ull; now_ns() < until;) {
			qs_stats(&st1, 0);
			if (st1.rcu_cb_invoked >= st0.rcu_cb_queued)
				break;
		}
		bystander = fork();
		if (bystander == 0) {
			sched_setscheduler(0, SCHED_OTHER, &normal);
			usleep(2000);
			_exit(0);
		}
		rc = kill(gone, SIGKILL);
		err = errno;
		if (rc == 0 || err != ESRCH) {
			printf("psstorm: reaper: kill(%d, SIGKILL) of a reaped pid returned %d (%s), "
			       "not ESRCH\n", gone, rc, rc ? strerror(err) : "success");
			r->failed = 1;
		}
		if (bystander > 0) {
			if (waitpid(bystander, &st, 0) != bystander || !WIFEXITED(st) ||
			    WEXITSTATUS(st) != 0) {
				printf("psstorm: reaper: bystander %d did not exit by itself (status %#x%s)\n",
				       bystander, st, WIFSIGNALED(st) ? ": killed by a signal meant for "
				       "a reaped pid" : "");
				r->failed = 1;
			}
		}
		if (r->failed)
			return;
		r->ops++;
	}
}

static void kthreader(struct result *r, uint64_t end)
{
	while (now_ns() < end) {
		uint64_t left = (end - now_ns()) / 1000000;
		long n = qs_tasklist(QS_TASKLIST_KTHREADS, left ? (long)left : 1);

		if (n < 0) {
			perror("psstorm: qs_tasklist(KTHREADS)");
			r->failed = 1;
			return;
		}
		r->ops += n;
	}
}

/* One storm: the children of each role, their results gathered over UDP. */
static int storm(unsigned long ms, const int count[NR_ROLES], struct result *got, int *ngot)
{
	struct sockaddr_in me = { .sin_family = AF_INET };
	pid_t kids[MAX_KIDS];
	int nkids = 0, fd, bad = 0, rcvbuf = 256 * 1024;
	uint64_t end;
	struct timeval tv = { .tv_sec = 10 };

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	me.sin_port = htons(REPORT_PORT);
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		perror("psstorm: the report socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	end = now_ns() + (uint64_t)ms * 1000000;
	for (int role = 0; role < NR_ROLES; role++)
		for (int i = 0; i < count[role] && nkids < MAX_KIDS; i++) {
			pid_t pid = fork();

			if (pid == 0) {
				struct result r = { .role = role, .idx = i };

				close(fd);
				if (role == WALKER)
					walker(&r, end);
				else if (role == FORKER)
					forker(&r, end);
				else if (role == KILLER)
					killer(&r, end);
				else if (role == REAPER)
					reaper(&r, end);
				else
					kthreader(&r, end);
				report(&r);
				_exit(r.failed);
			}
			if (pid < 0) {
				perror("psstorm: fork");
				bad = 1;
				continue;
			}
			kids[nkids++] = pid;
		}
	*ngot = 0;
	for (int i = 0; i < nkids; i++) {
		int st;

		if (waitpid(kids[i], &st, 0) != kids[i] || !WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("psstorm: child %d failed (status %#x)\n", kids[i], st);
			bad = 1;
		}
	}
	while (*ngot < nkids && recv(fd, &got[*ngot], sizeof(got[0]), 0) == sizeof(got[0]))
		(*ngot)++;
	close(fd);
	if (*ngot != nkids) {
		printf("psstorm: %d of %d children reported\n", *ngot, nkids);
		bad = 1;
	}
	return bad;
}

static void sum(const struct result *got, int n, int role, struct result *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < n; i++) {
		if (got[i].role != role)
			continue;
		s->ops += got[i].ops;
		s->ops2 += got[i].ops2;
		s->ops3 += got[i].ops3;
		s->ns_sum += got[i].ns_sum;
		if (got[i].ns_max > s->ns_max)
			s->ns_max = got[i].ns_max;
	}
}

static int same(const char *what, uint64_t a, uint64_t b)
{
	printf("psstorm: %-16s %10lu -> %10lu%s\n", what, (unsigned long)a, (unsigned long)b,
	       a == b ? "" : "  NOT back at the baseline");
	return a == b;
}

static int baseline_ok(const struct qs_stats *a, const struct qs_stats *b, int say)
{
	if (!say)
		return a->kmalloc_objects == b->kmalloc_objects &&
		       a->kmalloc_bytes == b->kmalloc_bytes && a->tasks_alive == b->tasks_alive &&
		       a->processes == b->processes && a->user_pages == b->user_pages &&
		       a->files_open == b->files_open;
	int ok = 1;

	ok &= same("kmalloc objects", a->kmalloc_objects, b->kmalloc_objects);
	ok &= same("kmalloc bytes", a->kmalloc_bytes, b->kmalloc_bytes);
	ok &= same("tasks", a->tasks_alive, b->tasks_alive);
	ok &= same("processes", a->processes, b->processes);
	ok &= same("user pages", a->user_pages, b->user_pages);
	ok &= same("open files", a->files_open, b->files_open);
	return ok;
}

static int run_storm(int secs, const int count[NR_ROLES])
{
	struct result got[MAX_KIDS], s[NR_ROLES];
	struct qs_stats before, after;
	int n, bad, ok, mode = (int)qs_tasklist(QS_TASKLIST_MODE, -1);
	static const int warm[NR_ROLES] = { 1, 1, 1, 1, 0 };

	/* Said before the warm-up, which a broken RCU may not survive. */
	printf("psstorm: tasklist=%s: %d walkers, %d forkers, %d killers, %d kthreaders, %d reapers "
	       "for %d s\n", mode ? "rcu" : "lock", count[0], count[1], count[2], count[3], count[4],
	       secs);
	/* A short warm-up: what the kernel allocates once and keeps is no leak. */
	storm(200, warm, got, &n);
	qs_stats(&before, QS_STATS_SYNC);
	bad = storm(secs * 1000UL, count, got, &n);
	for (int r = 0; r < NR_ROLES; r++)
		sum(got, n, r, &s[r]);
	printf("psstorm: %lu ps walks (mean %lu us, worst %lu us), %lu kill(0) found, %lu too late\n",
	       (unsigned long)s[WALKER].ops,
	       (unsigned long)(s[WALKER].ops ? s[WALKER].ns_sum / s[WALKER].ops / 1000 : 0),
	       (unsigned long)(s[WALKER].ns_max / 1000), (unsigned long)s[WALKER].ops2,
	       (unsigned long)s[WALKER].ops3);
	printf("psstorm: %lu forks reaped (%lu EAGAIN), %lu children killed or exited (%lu killed), "
	       "%lu kernel threads made and ended\n", (unsigned long)s[FORKER].ops,
	       (unsigned long)s[FORKER].ops3, (unsigned long)s[KILLER].ops,
	       (unsigned long)s[KILLER].ops2, (unsigned long)s[KTHREADER].ops);
	printf("psstorm: %lu reaped pids SIGKILLed by the reapers\n",
	       (unsigned long)s[REAPER].ops);
	/* A dying task's last reference may go after the first barrier: wait for it. */
	for (int i = 0; i < 50; i++) {
		qs_stats(&after, QS_STATS_SYNC);
		if (baseline_ok(&before, &after, 0))
			break;
		usleep(100000);
	}
	ok = baseline_ok(&before, &after, 1);
	if (count[WALKER] && !s[WALKER].ops)
		bad = 1;
	if (count[FORKER] && !s[FORKER].ops)
		bad = 1;
	if (count[KTHREADER] && !s[KTHREADER].ops)
		bad = 1;
	if (count[REAPER] && !s[REAPER].ops)
		bad = 1;
	if (bad || !ok) {
		printf("psstorm: FAIL: %s\n", bad ? "a child failed or made no progress" :
		       "allocations not back at the baseline");
		return 1;
	}
	printf("psstorm: PASS: tasklist=%s, no freed task or process seen, allocations back at "
	       "the baseline\n", mode ? "rcu" : "lock");
	return 0;
}

/* -b: tasklist=rcu then =lock, in this boot: ps latency and fork rate while both run. */
static int run_bench(int secs)
{
	static const int count[NR_ROLES] = { 1, 2, 0, 1, 0 };
	int was = (int)qs_tasklist(QS_TASKLIST_MODE, -1), bad = 0, ncpus;
	struct qs_stats st;
	uint64_t fr[2] = { 0, 0 }, ps[2] = { 0, 0 };

	qs_stats(&st, 0);
	ncpus = (int)st.ncpus;
	pace_us = 1000;
	for (int m = 1; m >= 0; m--) {
		struct result got[MAX_KIDS], w, f, k;
		int n;

		if (qs_tasklist(QS_TASKLIST_MODE, m) < 0) {
			perror("psstorm: qs_tasklist(MODE)");
			return 1;
		}
		bad |= storm(secs * 1000UL, count, got, &n);
		sum(got, n, WALKER, &w);
		sum(got, n, FORKER, &f);
		sum(got, n, KTHREADER, &k);
		ps[m] = w.ops ? w.ns_sum / w.ops : 0;
		fr[m] = f.ops / secs;
		printf("BENCH {\"bench\":\"psstorm\",\"mode\":\"%s\",\"cpus\":%d,\"secs\":%d,"
		       "\"ps_walks\":%lu,\"ps_ns\":%lu,\"ps_max_ns\":%lu,\"forks_per_s\":%lu,"
		       "\"kthreads_per_s\":%lu}\n", m ? "rcu" : "lock", ncpus, secs,
		       (unsigned long)w.ops, (unsigned long)ps[m], (unsigned long)w.ns_max,
		       (unsigned long)fr[m], (unsigned long)(k.ops / secs));
	}
	qs_tasklist(QS_TASKLIST_MODE, was);
	printf("psstorm-bench: %d CPUs: ps rcu %lu ns, lock %lu ns (lock/rcu x100 %lu); forks/s "
	       "rcu %lu, lock %lu (rcu/lock x100 %lu)\n", ncpus, (unsigned long)ps[1],
	       (unsigned long)ps[0], (unsigned long)(ps[1] ? ps[0] * 100 / ps[1] : 0),
	       (unsigned long)fr[1], (unsigned long)fr[0],
	       (unsigned long)(fr[0] ? fr[1] * 100 / fr[0] : 0));
	return bad;
}

int main(int argc, char **argv)
{
	int count[NR_ROLES] = { 1, 2, 1, 1, 1 }, bench = 0;
	int secs = 3;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-b"))
			bench = 1;
		else if (i + 1 < argc && !strcmp(argv[i], "-s"))
			secs = atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-w"))
			count[WALKER] = atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-f"))
			count[FORKER] = atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-k"))
			count[KILLER] = atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-t"))
			count[KTHREADER] = atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-r"))
			count[REAPER] = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: psstorm [-b] [-s secs] [-w walkers] [-f forkers] "
					"[-k killers] [-t kthreaders] [-r reapers]\n");
			return 2;
		}
	}
	if (secs < 1 || secs > 60 ||
	    count[0] + count[1] + count[2] + count[3] + count[4] > MAX_KIDS) {
		fprintf(stderr, "psstorm: 1 to 60 s, at most %d children\n", MAX_KIDS);
		return 2;
	}
	return bench ? run_bench(secs) : run_storm(secs, count);
}
