/*
 * nmitop [-f HZ] [-t MS] [-n TOP] [-- COMMAND ARGS...]: profile the kernel
 * with NMIs (modules/nmiprof.c, docs/modules.md).
 *
 * Every CPU takes HZ NMIs a second (default 1000) for MS milliseconds
 * (default 1000), or while COMMAND runs; then the TOP (default 15) most
 * sampled kernel functions are printed, module functions named with their
 * module, "hello_spin [hello]". nmiprof.ko is loaded for the run if it is
 * not loaded already (and unloaded after). Root only.
 *
 *	nmitop -f 1000 -- modctl hello spin 500
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>
#include <sys/wait.h>
#include <sys/module.h>
#include <quiescent.h>

static int run(char **argv)
{
	char path[QS_PATH_MAX];
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		snprintf(path, sizeof(path), "%s%s", strchr(argv[0], '/') ? "" : "/bin/", argv[0]);
		execv(path, argv);
		perror(path);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int load_nmiprof(void)
{
	char err[QS_MODULE_ERRLEN] = "";
	void *img;
	size_t size;

	if (read_file("/lib/modules/nmiprof.ko", &img, &size) || init_module(img, size, "", err)) {
		fprintf(stderr, "nmitop: cannot load nmiprof.ko: %s %s\n", strerror(errno), err);
		return -1;
	}
	free(img);
	return 0;
}

static void report(const struct nmiprof_report *r, unsigned long ms, int top)
{
	printf("nmitop: %lu samples at %u Hz on %u CPUs in %lu ms: %lu in the kernel "
	       "(%lu idle), %lu in user mode, %lu lost, %lu outside any function\n",
	       (unsigned long)r->samples, r->hz, r->ncpus, ms,
	       (unsigned long)(r->samples - r->user), (unsigned long)r->idle,
	       (unsigned long)r->user, (unsigned long)r->lost, (unsigned long)r->unknown);
	printf("nmitop: per CPU:");
	for (unsigned int c = 0; c < r->ncpus && c < 16; c++)
		printf(" cpu%u=%lu", c, (unsigned long)r->cpu_samples[c]);
	printf("\n%7s %8s  %s\n", "share", "samples", "function");
	for (unsigned int i = 0; i < r->nentries && (int)i < top; i++)
		printf("%6lu%% %8lu  %s\n",
		       r->samples ? (unsigned long)(r->entries[i].samples * 100 / r->samples) : 0,
		       (unsigned long)r->entries[i].samples, r->entries[i].name);
}

int main(int argc, char **argv)
{
	unsigned long hz = 1000, ms = 1000;
	int top = 15, i, loaded = 0, status = 0;
	static struct nmiprof_report r;
	struct timespec t0, t1;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (i + 1 < argc && !strcmp(argv[i], "-f"))
			hz = strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && !strcmp(argv[i], "-t"))
			ms = strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && !strcmp(argv[i], "-n"))
			top = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: nmitop [-f HZ] [-t MS] [-n TOP] [-- COMMAND ARGS...]\n");
			return 2;
		}
	}
	if (module_ctl("nmiprof", NMIPROF_CTL_RESET, 0, NULL, 0) < 0) {
		if (errno != ENOENT || load_nmiprof())
			return 1;
		loaded = 1;
	}
	if (module_ctl("nmiprof", NMIPROF_CTL_START, hz, NULL, 0) < 0) {
		perror("nmitop: start");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (i < argc - 1)
		status = run(argv + i + 1);
	else
		usleep(ms * 1000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	module_ctl("nmiprof", NMIPROF_CTL_STOP, 0, NULL, 0);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	if (module_ctl("nmiprof", NMIPROF_CTL_READ, 0, &r, sizeof(r)) < 0) {
		perror("nmitop: read");
		return 1;
	}
	report(&r, ms, top);
	if (loaded && delete_module("nmiprof", 0))
		perror("nmitop: rmmod nmiprof");
	return status;
}
