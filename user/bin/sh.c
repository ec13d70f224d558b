/*
 * sh: the shell.
 *
 *   sh              interactive, on the console: a prompt, a line, run it
 *   sh -c 'script'  run the script and exit: 0 if every command succeeded
 *
 * A line holds commands separated by ';'. A command is words separated by
 * blanks ("double quotes" keep blanks in a word); the first word is a
 * builtin or a program in /bin. A leading '!' expects the command to fail
 * (a test that a program is killed, say). Builtins: help, ps, cpus, rcu,
 * uptime, poweroff, exit. `rcu sync`, `rcu call N` and `rcu barrier`
 * make the kernel do RCU work now (qs_rcu(), kernel/proc/qs_rcu.c): an
 * idle kernel starts no grace period, and a student in gdb needs one.
 * `cd [dir]` and `pwd` move in the filesystem; `cmd > file` and
 * `cmd >> file` send a command's standard output to a file.
 * `a | b | c` runs the commands at once, each in its own process, each
 * one's standard output a pipe to the next one's standard input (a
 * builtin in a pipeline runs in a child too); the status is the last
 * one's. `ulimit [-n | -a]` prints the descriptor limit (and the pipes').
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <time.h>
#include <quiescent.h>
#include <fcntl.h>
#include <qs_fs.h>
#include <signal.h>

#define MAX_WORDS	32
#define MAX_STAGES	16	/* commands in one pipeline */

static bool script_mode;
static int failures;

static int split_words(char *s, char *argv[])
{
	int n = 0;

	while (*s && n < MAX_WORDS - 1) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		if (*s == '"') {
			argv[n++] = ++s;
			while (*s && *s != '"')
				s++;
		} else {
			argv[n++] = s;
			while (*s && *s != ' ' && *s != '\t' && *s != '\n')
				s++;
		}
		if (*s)
			*s++ = 0;
	}
	argv[n] = NULL;
	return n;
}

static int b_help(int argc, char **argv)
{
	struct qs_dirent d;

	printf("Quiescent shell. Commands separated by ';', a leading '!' expects failure.\n"
	       "builtins: help ps cpus rcu [sync | call N | barrier] uptime poweroff [code] exit [code]\n"
	       "         cd [dir] pwd ulimit [-n | -a]; cmd > file, cmd >> file, cmd | cmd\n"
	       "programs:");
	for (int i = 0; qs_readdir(i, &d) == 0; i++)
		if (!strncmp(d.name, "bin/", 4))
			printf(" %s", d.name + 4);
	printf("\n");
	return 0;
}

static const char *fmt_ms(unsigned long ns, char *buf)
{
	snprintf(buf, 24, "%lu.%03lu", ns / 1000000000, ns / 1000000 % 1000);
	return buf;
}

static int b_ps(int argc, char **argv)
{
	static struct qs_procinfo p[256];
	char t[24];
	/* ps -a: kernel threads too (every task on the kernel's task list) */
	int all = argc > 1 && !strcmp(argv[1], "-a");
	int n = qs_ps(p, 256 | (all ? QS_PS_KTHREADS : 0));

	if (n < 0) {
		perror("ps");
		return 1;
	}
	printf("  PID  PPID   UID S CPU      TIME NAME\n");
	for (int i = 0; i < n; i++)
		printf("%5d %5d %5d %c %3d %9s %s\n", p[i].pid, p[i].ppid, p[i].uid, p[i].state,
		       p[i].cpu, fmt_ms(p[i].run_ns, t), p[i].name);
	return 0;
}

static int get_stats(struct qs_stats *s)
{
	if (qs_stats(s, 0)) {
		perror("qs_stats");
		return -1;
	}
	return 0;
}

static void rcu_report(const struct qs_stats *s)
{
	printf("rcu: variant %s, HZ %u, %u CPUs\n", s->rcu_variant, s->hz, s->ncpus);
	printf("rcu: grace periods started %lu, completed %lu\n", s->rcu_gp_started,
	       s->rcu_gp_completed);
	printf("rcu: callbacks queued %lu, invoked %lu, pending %lu\n", s->rcu_cb_queued,
	       s->rcu_cb_invoked, s->rcu_cb_queued - s->rcu_cb_invoked);
}

static unsigned long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000UL + ts.tv_nsec / 1000;
}

/* rcu sync | rcu barrier: wait in the kernel, then say what moved meanwhile. */
static int rcu_wait(int op, const char *what)
{
	struct qs_stats a, b;
	unsigned long t0, us;

	if (get_stats(&a))
		return 1;
	t0 = now_us();
	if (qs_rcu(op, 0) < 0) {
		perror("rcu");
		return 1;
	}
	us = now_us() - t0;
	if (get_stats(&b))
		return 1;
	printf("rcu: %s returned after %lu.%03lu ms; grace periods completed %lu -> %lu, "
	       "callbacks invoked %lu -> %lu\n", what, us / 1000, us % 1000,
	       a.rcu_gp_completed, b.rcu_gp_completed, a.rcu_cb_invoked, b.rcu_cb_invoked);
	return 0;
}

static int rcu_call(const char *count)
{
	char *end;
	unsigned long n = strtoul(count, &end, 0);
	long queued;

	if (*end || !*count) {
		fprintf(stderr, "rcu: call: '%s' is not a number\n", count);
		return 1;
	}
	queued = qs_rcu(QS_RCU_CALL, n);
	if (queued < 0) {
		perror("rcu: call");
		return 1;
	}
	printf("rcu: queued %ld callback%s with call_rcu()\n", queued, queued == 1 ? "" : "s");
	return 0;
}

static int b_rcu(int argc, char **argv)
{
	struct qs_stats s;

	if (argc == 1) {
		if (get_stats(&s))
			return 1;
		rcu_report(&s);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "sync"))
		return rcu_wait(QS_RCU_SYNC, "synchronize_rcu()");
	if (argc == 2 && !strcmp(argv[1], "barrier"))
		return rcu_wait(QS_RCU_BARRIER, "rcu_barrier()");
	if (argc == 3 && !strcmp(argv[1], "call"))
		return rcu_call(argv[2]);
	fprintf(stderr, "usage: rcu [sync | call N | barrier]\n");
	return 1;
}

static int b_cpus(int argc, char **argv)
{
	struct qs_stats s;
	struct utsname u;
	long online;

	if (get_stats(&s) || uname(&u))
		return 1;
	/* s.cpu[] is indexed by CPU id, and the online CPUs need not be
	 * 0..ncpus-1 (cpu N off): ask which they are. */
	online = qs_cpu(QS_CPU_ONLINE, 0);
	if (online < 0) {
		fprintf(stderr, "cpus: %s\n", strerror((int)-online));
		return 1;
	}
	printf("cpus: %u online (max %d), HZ %u, rcu %s, preemption %s\n", s.ncpus, u.max_cpus,
	       s.hz, s.rcu_variant, u.preempt);
	for (unsigned int c = 0; c < QS_STATS_MAX_CPUS; c++) {
		struct qs_cpu_stats *p = &s.cpu[c];
		unsigned long idle = s.uptime_ns ? p->idle_ns * 100 / s.uptime_ns : 0;

		if (!(online >> c & 1))
			continue;

		printf("cpu%u: switches %lu (voluntary %lu, involuntary %lu), idle %lu%%, "
		       "runnable %lu, rcu callbacks %lu/%lu\n", c, p->nr_switches, p->nvcsw,
		       p->nivcsw, idle, p->nr_running, p->rcu_invoked, p->rcu_queued);
	}
	return 0;
}

static int b_uptime(int argc, char **argv)
{
	struct qs_stats s;

	if (get_stats(&s))
		return 1;
	printf("up %lu.%02lu s, %lu processes, %lu tasks, %lu system calls\n",
	       s.uptime_ns / 1000000000, s.uptime_ns / 10000000 % 100, s.processes,
	       s.tasks_alive, s.syscalls);
	return 0;
}

/*
 * poweroff [code]: the code QEMU exits with (0 pass, else fail); without
 * one, 1 if a command of this shell failed. Say which status, and why,
 * so that a failed script's power-off does not read as a failed one.
 */
static int b_poweroff(int argc, char **argv)
{
	int code = argc > 1 ? atoi(argv[1]) : failures != 0;

	if (!code)
		printf("sh: power off (success)\n");
	else if (argc > 1)
		printf("sh: power off (status %d)\n", code);
	else
		printf("sh: power off (status 1: %d command%s failed)\n", failures,
		       failures == 1 ? "" : "s");
	if (poweroff(code))
		perror("poweroff");
	return 1;
}

static int b_exit(int argc, char **argv)
{
	exit(argc > 1 ? atoi(argv[1]) : failures != 0);
}

static int b_cd(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/";

	if (chdir(dir) < 0) {
		fprintf(stderr, "cd: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	return 0;
}

static int b_pwd(int argc, char **argv)
{
	char buf[512];

	if (!getcwd(buf, sizeof(buf))) {
		perror("pwd");
		return 1;
	}
	printf("%s\n", buf);
	return 0;
}

/*
 * "> file" or ">> file" (also ">file"): take it out of argv and point fd 1
 * at the file, keeping the old fd 1 in *saved for undo_redirect(). -1 if
 * the file cannot be opened (the command does not run), 0 otherwise.
 */
static int redirect(int *argc, char **argv, int *saved)
{
	*saved = -1;
	for (int i = 0; i < *argc; i++) {
		char *w = argv[i], *file;
		int flags = O_WRONLY | O_CREAT | O_TRUNC, fd, drop = 1;

		if (w[0] != '>')
			continue;
		if (w[1] == '>') {
			flags = O_WRONLY | O_CREAT | O_APPEND;
			w++;
		}
		file = w[1] ? w + 1 : (i + 1 < *argc ? (drop = 2, argv[i + 1]) : NULL);
		if (!file) {
			fprintf(stderr, "sh: redirection without a file\n");
			return -1;
		}
		fd = open(file, flags, 0644);
		if (fd < 0) {
			fprintf(stderr, "sh: %s: %s\n", file, strerror(errno));
			return -1;
		}
		fflush(stdout);
		if (*saved < 0)
			*saved = dup(1);
		dup2(fd, 1);
		close(fd);
		for (int j = i; j + drop <= *argc; j++)
			argv[j] = argv[j + drop];
		*argc -= drop;
		i--;
	}
	return 0;
}

static void undo_redirect(int saved)
{
	if (saved < 0)
		return;
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
}

/* ulimit [-n | -a]: the limits, which are fixed (include/uapi/quiescent.h). */
static int b_ulimit(int argc, char **argv)
{
	struct qs_stats s;

	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "-n"))) {
		printf("%d\n", OPEN_MAX);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "-a")) {
		if (get_stats(&s))
			return 1;
		printf("open files (-n, per process)  %d\n", OPEN_MAX);
		printf("pipe size (bytes)             %d\n", PIPE_BUF);
		printf("pipes (system)                %lu open, at most %lu\n", s.pipes_open,
		       s.pipes_max);
		return 0;
	}
	fprintf(stderr, "usage: ulimit [-n | -a] (the limits are fixed)\n");
	return 1;
}

static const struct builtin {
	const char *name;
	int (*fn)(int argc, char **argv);
} builtins[] = {
	{ "help", b_help }, { "ps", b_ps }, { "cpus", b_cpus }, { "rcu", b_rcu },
	{ "uptime", b_uptime }, { "poweroff", b_poweroff }, { "exit", b_exit },
	{ "cd", b_cd }, { "pwd", b_pwd }, { "ulimit", b_ulimit },
};

/* In a child: become argv's program; 127 if there is none. */
static int exec_program(char **argv)
{
	char path[128];

	if (strchr(argv[0], '/'))
		snprintf(path, sizeof(path), "%s", argv[0]);
	else
		snprintf(path, sizeof(path), "/bin/%s", argv[0]);
	execv(path, argv);
	fprintf(stderr, "sh: %s: %s\n", argv[0], strerror(errno));
	return 127;
}

static int run_program(char **argv)
{
	int st;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		perror("sh: fork");
		return 126;
	}
	if (pid == 0)
		_exit(exec_program(argv));
	if (waitpid(pid, &st, 0) != pid) {
		perror("sh: waitpid");
		return 126;
	}
	if (WIFSIGNALED(st)) {
		printf("sh: %s (pid %d) was killed by signal %d\n", argv[0], pid, WTERMSIG(st));
		return 128 + WTERMSIG(st);
	}
	return WEXITSTATUS(st);
}

/* Split cmd at each '|' outside double quotes: the number of stages. */
static int split_pipeline(char *cmd, char *stages[])
{
	bool quoted = false;
	int n = 1;

	stages[0] = cmd;
	for (char *s = cmd; *s; s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (*s == '|' && !quoted) {
			if (n == MAX_STAGES)
				return -1;
			*s = 0;
			stages[n++] = s + 1;
		}
	}
	return n;
}

/* One stage of a pipeline, in its own process, fds 0 and 1 already set: its status. */
static int run_stage(char *cmd)
{
	char *argv[MAX_WORDS];
	int argc = split_words(cmd, argv), saved;

	if (!argc) {
		fprintf(stderr, "sh: an empty command in a pipeline\n");
		return 2;
	}
	if (redirect(&argc, argv, &saved) < 0 || !argc)
		return 1;
	for (unsigned int i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(argv[0], builtins[i].name))
			return builtins[i].fn(argc, argv);
	return exec_program(argv);
}

/*
 * stages[0] | stages[1] | ...: a pipe between each pair, every stage a
 * child. The shell closes its copies of each pipe's ends as soon as the
 * children have theirs, so a reader sees end of file when its writer
 * exits, and a writer whose reader exited gets SIGPIPE. The status is
 * the last stage's; an earlier stage killed by SIGPIPE is normal (its
 * reader stopped reading) and not reported.
 */
static int run_pipeline(char **stages, int n)
{
	pid_t pids[MAX_STAGES];
	int in = -1, status = 126, np = 0, st;

	fflush(stdout);
	for (int i = 0; i < n; i++) {
		int fds[2] = { -1, -1 };
		pid_t pid;

		if (i < n - 1 && pipe(fds) < 0) {
			perror("sh: pipe");
			break;
		}
		pid = fork();
		if (pid == 0) {
			if (in >= 0) {
				dup2(in, 0);
				close(in);
			}
			if (fds[1] >= 0) {
				dup2(fds[1], 1);
				close(fds[1]);
				close(fds[0]);
			}
			_exit(run_stage(stages[i]));
		}
		if (in >= 0)
			close(in);
		if (fds[1] >= 0)
			close(fds[1]);
		in = fds[0];
		if (pid < 0) {
			perror("sh: fork");
			break;
		}
		pids[np++] = pid;
	}
	if (in >= 0)
		close(in);
	for (int i = 0; i < np; i++) {
		if (waitpid(pids[i], &st, 0) != pids[i]) {
			perror("sh: waitpid");
			continue;
		}
		if (WIFSIGNALED(st) && (i == n - 1 || WTERMSIG(st) != SIGPIPE))
			printf("sh: pipeline stage %d (pid %d) was killed by signal %d\n", i + 1,
			       pids[i], WTERMSIG(st));
		if (i == n - 1)
			status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	}
	return status;
}

static void run_command(char *cmd)
{
	char *argv[MAX_WORDS], *stages[MAX_STAGES];
	bool invert = false;
	int argc, status = -1, saved = -1, nstages;

	while (*cmd == ' ' || *cmd == '\t')
		cmd++;
	if (*cmd == '!') {
		invert = true;
		cmd++;
	}
	if ((nstages = split_pipeline(cmd, stages)) != 1) {
		argv[0] = "pipeline";
		if (nstages < 0)
			fprintf(stderr, "sh: more than %d commands in a pipeline\n", MAX_STAGES);
		status = nstages < 0 ? 2 : run_pipeline(stages, nstages);
		goto done;
	}
	argc = split_words(cmd, argv);
	if (!argc)
		return;
	if (redirect(&argc, argv, &saved) < 0 || !argc) {
		undo_redirect(saved);
		status = 1;
		goto done;
	}
	for (unsigned int i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(argv[0], builtins[i].name))
			status = builtins[i].fn(argc, argv);
	if (status < 0)
		status = run_program(argv);
	undo_redirect(saved);
done:
	if ((status != 0) != invert) {
		failures++;
		printf("sh: %s'%s' %s (status %d)\n", invert ? "!" : "", argv[0] ? argv[0] : ">",
		       invert ? "succeeded but was expected to fail" : "failed", status);
	}
}

static void run_line(char *line)
{
	char *cmd = line;

	while (cmd) {
		char *semi = strchr(cmd, ';');

		if (semi)
			*semi = 0;
		if (script_mode && strspn(cmd, " \t\n") != strlen(cmd))
			printf("$ %s\n", cmd + strspn(cmd, " \t"));
		run_command(cmd);
		cmd = semi ? semi + 1 : NULL;
	}
}

int main(int argc, char **argv)
{
	char line[256];

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		script_mode = true;
		run_line(argv[2]);
		printf("sh: script done, %d failure%s\n", failures, failures == 1 ? "" : "s");
		return failures != 0;
	}
	printf("Quiescent shell ready (pid %d); 'help' lists the commands\n", getpid());
	for (;;) {
		fputs("$ ", stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 0;
		run_line(line);
	}
}
