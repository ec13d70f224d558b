/*
 * forktree [depth] [width]: a tree of processes. Every inner process forks
 * `width` children and waits for them; the leaves exec /bin/true. Each
 * process exits with the number of processes in its subtree (itself
 * included), so the root can check the whole tree ran and was reaped:
 * width + width^2 + ... + width^depth. Checks getppid() in each child,
 * that waitpid() returns the pids that fork() gave, and ECHILD at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>
#include <sys/wait.h>

static int subtree(int depth, int width)
{
	pid_t kids[16];
	int total = 1;

	for (int i = 0; i < width; i++) {
		pid_t me = getpid(), pid = fork();

		if (pid < 0) {
			perror("forktree: fork");
			return 255;
		}
		if (pid == 0) {
			if (getppid() != me) {
				printf("forktree: FAIL: getppid %d, expected %d\n", getppid(), me);
				_exit(255);
			}
			if (depth > 1)
				_exit(subtree(depth - 1, width));
			char *argv[] = { "true", NULL };
			execv("/bin/true", argv);
			perror("forktree: exec /bin/true");
			_exit(255);
		}
		kids[i] = pid;
	}
	for (int i = width - 1; i >= 0; i--) {	/* in another order than forked */
		int st;
		pid_t got = waitpid(kids[i], &st, 0);

		if (got != kids[i] || !WIFEXITED(st) || WEXITSTATUS(st) == 255) {
			printf("forktree: FAIL: waitpid(%d) = %d, status %#x\n", kids[i], got, st);
			return 255;
		}
		total += depth > 1 ? WEXITSTATUS(st) : 1;
	}
	if (waitpid(-1, NULL, 0) != -1 || errno != ECHILD) {
		printf("forktree: FAIL: a child left over, or no ECHILD\n");
		return 255;
	}
	return total;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 3, width = argc > 2 ? atoi(argv[2]) : 2;
	int expect = 0, got, p = 1;

	if (depth < 1 || width < 1 || width > 16) {
		fprintf(stderr, "usage: forktree [depth] [width <= 16]\n");
		return 2;
	}
	for (int d = 0; d < depth; d++)
		expect += (p *= width);
	if (expect > 250) {
		fprintf(stderr, "forktree: at most 250 processes\n");
		return 2;
	}
	got = subtree(depth, width) - 1;
	if (got != expect) {
		printf("forktree: FAIL: %d processes ran, expected %d\n", got, expect);
		return 1;
	}
	printf("forktree: PASS: depth %d width %d: %d processes forked, exec'd, waited for\n",
	       depth, width, got);
	return 0;
}
