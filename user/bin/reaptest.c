/*
 * reaptest: a reaped process is gone, although its memory waits for a
 * grace period (kernel/proc/process.c frees it with call_rcu()).
 *
 *   reaptest            slots: fork and reap 300 children, then at once
 *                       fork 120 that stay alive: every fork must succeed
 *                       (the limit is 128 processes alive or zombie; the
 *                       300 reaped ones are still waiting for their grace
 *                       period, but no longer count)
 *   reaptest memory     also memory: children eat the heap until fork
 *                       fails; it must fail with ENOMEM (not crash, not
 *                       hang); under that pressure more children are forked
 *                       and reaped; then the eaters are killed, and forks
 *                       work again at once; allocations end at baseline
 */
#define CHECK_PROG "reaptest"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <quiescent.h>

#define MAX_LIVE	120
#define MAX_EATERS	100
#define LEAVE		300	/* pages left free for the fork-and-reap rounds */


/* Fork n children that exit at once; reap them (only them: the eaters
 * stay). The forks that failed. */
static int churn(int n, int *enomem)
{
	static pid_t pids[50];
	int bad = 0, live = 0, st;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid < 0) {
			if (errno == ENOMEM && enomem)
				(*enomem)++;
			else
				CHECK(false, "fork in churn %d failed", i);
			bad++;
		} else {
			pids[live++] = pid;
		}
		if (live == 50 || i == n - 1) {
			while (live)
				waitpid(pids[--live], &st, 0);
		}
	}
	return bad;
}

/* Fork n children that sleep until killed; their pids in pids[]. */
static int fork_sleepers(pid_t *pids, int n)
{
	int got = 0;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			sleep(1000);
			_exit(0);
		}
		if (pid < 0)
			break;
		pids[got++] = pid;
	}
	return got;
}

static void kill_all(pid_t *pids, int n)
{
	int st;

	for (int i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		waitpid(pids[i], &st, 0);
}

static void check_slots(void)
{
	static pid_t pids[MAX_LIVE];
	struct qs_stats s;
	int got;

	churn(300, NULL);
	qs_stats(&s, 0);
	printf("reaptest: 300 children reaped; %lu processes alive, %lu reaped ones waiting "
	       "for a grace period\n", s.processes, s.processes_freeing);
	got = fork_sleepers(pids, MAX_LIVE);
	CHECK(got == MAX_LIVE, "forked %d of %d live children right after reaping 300",
	      got, MAX_LIVE);
	if (got == MAX_LIVE)
		printf("reaptest: %d live children forked right after reaping 300\n", got);
	kill_all(pids, got);
}

/* A child that maps heap until it cannot (or until only `leave` pages
 * are free), then waits to be killed. */
static void eater(unsigned long leave)
{
	struct qs_stats s;

	while (sbrk(1 << 18) != (void *)-1)
		if (leave && (qs_stats(&s, 0) || s.free_pages <= leave))
			break;
	for (;;)
		sleep(1000);
}

static void check_memory(void)
{
	static pid_t pids[MAX_EATERS];
	struct qs_stats before, during, after;
	int n = 0, enomem = 0, churn_bad, err = 0;

	qs_stats(&before, QS_STATS_SYNC);
	while (n < MAX_EATERS) {
		pid_t pid = fork();
		if (pid == 0)
			eater(0);
		if (pid < 0) {
			err = errno;
			break;
		}
		pids[n++] = pid;
		usleep(20000);		/* let it eat before the next fork */
	}
	qs_stats(&during, 0);
	printf("reaptest: %d eaters; the next fork failed with errno %d (%s); %lu of %lu pages "
	       "free\n", n, err, strerror(err), during.free_pages, during.total_pages);
	CHECK(err == ENOMEM || n >= MAX_EATERS,
	      "fork under memory exhaustion failed with errno %d, not ENOMEM (%d eaters)", err, n);
	/*
	 * Now leave a little room: one eater goes, another eats until
	 * LEAVE pages are free. Then fork and reap fast: each reaped child's
	 * kernel stack waits for a grace period, so the room fills with
	 * memory that is free in all but name, and fork has to wait for it.
	 */
	kill_all(&pids[0], 1);		/* the first one holds a full heap */
	{
		pid_t pid = fork();
		if (pid == 0)
			eater(LEAVE);
		pids[0] = pid > 0 ? pid : pids[--n];
		usleep(200000);
	}
	qs_stats(&during, 0);
	printf("reaptest: %lu pages free before the rounds\n", during.free_pages);
	churn_bad = churn(200, &enomem);
	qs_stats(&during, 0);
	printf("reaptest: with %d pages of room, 200 fork-and-reap rounds: %d failed (%d ENOMEM); "
	       "%lu forks waited for reaped memory\n", LEAVE, churn_bad, enomem,
	       during.fork_rcu_retries);
	kill_all(pids, n);
	{
		static pid_t live[MAX_LIVE];
		int got = fork_sleepers(live, 60);
		CHECK(got == 60, "after the eaters died, forked %d of 60", got);
		kill_all(live, got);
	}
	qs_stats(&after, QS_STATS_SYNC);
	CHECK(after.kmalloc_objects == before.kmalloc_objects && after.processes == before.processes &&
	      after.user_pages == before.user_pages,
	      "allocations not back at baseline: kmalloc objects %ld -> %ld",
	      (long)before.kmalloc_objects, (long)after.kmalloc_objects);
	printf("reaptest: free pages %lu before, %lu after\n", before.free_pages, after.free_pages);
}

int main(int argc, char **argv)
{
	check_slots();
	if (argc > 1 && !strcmp(argv[1], "memory"))
		check_memory();
	if (failed)
		return check_summary();
	printf("reaptest: PASS\n");	/* user-reap-smp2 expects the bare line */
	return 0;
}
