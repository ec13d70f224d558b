/*
 * init: the first process. Starts the shell on the console and reaps
 * every orphan. With an argument (the kernel command line's text after
 * " -- "), runs it as a script with `sh -c` and powers the machine off
 * when the shell is done: status 0 passes, anything else fails.
 */
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
#include <quiescent.h>

static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		execv("/bin/sh", argv);
		perror("init: exec /bin/sh");
		_exit(127);
	}
	if (pid < 0)
		perror("init: fork");
	return pid;
}

/* Wait for pid, reaping any orphan that comes first; its status. */
static int reap_until(pid_t pid)
{
	int st = 0;

	for (;;) {
		pid_t got = wait(&st);
		if (got == pid || got < 0)
			return st;
	}
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		char *sh_argv[] = { "sh", "-c", argv[1], NULL };
		pid_t pid = spawn(sh_argv);
		int st = pid > 0 ? reap_until(pid) : 1;

		printf("init: script done (%s), powering off\n",
		       WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "success" : "failure");
		poweroff(!(WIFEXITED(st) && WEXITSTATUS(st) == 0));
		return 1;
	}
	for (;;) {
		char *sh_argv[] = { "sh", NULL };
		pid_t pid = spawn(sh_argv);

		if (pid < 0) {
			sleep(1);
			continue;
		}
		reap_until(pid);
		printf("init: the shell exited; starting another\n");
	}
}
