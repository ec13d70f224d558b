/*
 * ipcs [-s] [-i id] [-l] [-u]: the SysV semaphore sets, in util-linux's
 * layout (Quiescent has semaphores only, so -a and no option show them):
 *
 *   ipcs -s          key, semid, owner, perms, nsems of every set
 *   ipcs -s -i id    one set: ids, mode, times, and per semaphore its
 *                    value, ncount, zcount and last pid
 *   ipcs -l          the limits (IPC_INFO);  ipcs -u  what is in use (SEM_INFO)
 *
 * The sets are found as util-linux finds them: SEM_INFO gives the highest
 * slot in use, SEM_STAT each slot's set. There is no password file, so
 * owners other than root print as numbers, and no wall clock, so times
 * are since boot, printed as if boot were the epoch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/ipc.h>
#include <sys/sem.h>

union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
	struct seminfo *__buf;
};

static void owner(unsigned int uid)
{
	if (uid == 0)
		printf("%-10s ", "root");
	else
		printf("%-10u ", uid);
}

static void list_sets(void)
{
	struct seminfo si;
	struct semid_ds ds;
	union semun a = { .__buf = &si };
	int max = semctl(0, 0, SEM_INFO, a);

	printf("\n------ Semaphore Arrays --------\n");
	printf("%-10s %-10s %-10s %-10s %-10s\n", "key", "semid", "owner", "perms", "nsems");
	for (int i = 0; i <= max; i++) {
		a.buf = &ds;
		int id = semctl(i, 0, SEM_STAT, a);
		if (id < 0)
			continue;
		printf("0x%08x %-10d ", (unsigned int)ds.sem_perm.__key, id);
		owner(ds.sem_perm.uid);
		printf("%-10o %-10lu\n", ds.sem_perm.mode & 0777, ds.sem_nsems);
	}
	printf("\n");
}

/* "Thu Jan  1 00:00:12 1970": seconds since boot, boot taken as the epoch. */
static const char *when(long t)
{
	static const char *wd[] = { "Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed" };
	static const char *mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug",
				     "Sep", "Oct", "Nov", "Dec" };
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	static char buf[32];
	long days = t / 86400, secs = t % 86400, y = 1970, m = 0;

	if (!t)
		return "Not set";
	const char *w = wd[days % 7];
	for (;;) {
		int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0, len = 365 + leap;
		if (days < len)
			break;
		days -= len;
		y++;
	}
	for (; m < 11; m++) {
		int len = mdays[m] + (m == 1 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
		if (days < len)
			break;
		days -= len;
	}
	snprintf(buf, sizeof(buf), "%s %s %2ld %02ld:%02ld:%02ld %ld", w, mon[m], days + 1,
		 secs / 3600, secs / 60 % 60, secs % 60, y);
	return buf;
}

/* printf's %#o (this libc's printf has no '#'). */
static const char *octal(unsigned int v)
{
	static char buf[16];

	snprintf(buf, sizeof(buf), v ? "0%o" : "0", v);
	return buf;
}

static int show_set(int id)
{
	struct semid_ds ds;
	union semun a = { .buf = &ds };

	if (semctl(id, 0, IPC_STAT, a) < 0) {
		if (errno == EACCES)
			fprintf(stderr, "ipcs: permission denied for id %d\n", id);
		else
			fprintf(stderr, "ipcs: id %d not found\n", id);
		return 1;
	}
	printf("\nSemaphore Array semid=%d\n", id);
	printf("uid=%u\t gid=%u\t cuid=%u\t cgid=%u\n", ds.sem_perm.uid, ds.sem_perm.gid,
	       ds.sem_perm.cuid, ds.sem_perm.cgid);
	printf("mode=%s", octal(ds.sem_perm.mode));
	printf(", access_perms=%s\n", octal(ds.sem_perm.mode & 0777));
	printf("nsems = %lu\n", ds.sem_nsems);
	printf("otime = %-26s\n", when(ds.sem_otime));
	printf("ctime = %-26s\n", when(ds.sem_ctime));
	printf("%-10s %-10s %-10s %-10s %-10s\n", "semnum", "value", "ncount", "zcount", "pid");
	for (unsigned long i = 0; i < ds.sem_nsems; i++)
		printf("%-10lu %-10d %-10d %-10d %-10d\n", i, semctl(id, i, GETVAL),
		       semctl(id, i, GETNCNT), semctl(id, i, GETZCNT), semctl(id, i, GETPID));
	printf("\n");
	return 0;
}

static void limits(void)
{
	struct seminfo si;
	union semun a = { .__buf = &si };

	semctl(0, 0, IPC_INFO, a);
	printf("\n------ Semaphore Limits --------\n");
	printf("max number of arrays = %d\n", si.semmni);
	printf("max semaphores per array = %d\n", si.semmsl);
	printf("max semaphores system wide = %d\n", si.semmns);
	printf("max ops per semop call = %d\n", si.semopm);
	printf("semaphore max value = %d\n", si.semvmx);
	printf("\n");
}

static void summary(void)
{
	struct seminfo si;
	union semun a = { .__buf = &si };

	semctl(0, 0, SEM_INFO, a);
	printf("\n------ Semaphore Status --------\n");
	printf("used arrays = %d\n", si.semusz);
	printf("allocated semaphores = %d\n", si.semaem);
	printf("\n");
}

static int usage(void)
{
	fprintf(stderr, "usage: ipcs [-s|-a] [-l|-u] | ipcs -s -i <id>\n");
	return 2;
}

int main(int argc, char **argv)
{
	int id = -1, lim = 0, sum = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s") || !strcmp(argv[i], "-a"))
			continue;
		else if (!strcmp(argv[i], "-l"))
			lim = 1;
		else if (!strcmp(argv[i], "-u"))
			sum = 1;
		else if (!strcmp(argv[i], "-i") && i + 1 < argc) {
			char *end;
			id = strtol(argv[++i], &end, 10);
			if (*end || id < 0) {
				fprintf(stderr, "ipcs: failed to parse id argument: '%s'\n", argv[i]);
				return 1;
			}
		} else {
			return usage();
		}
	}
	if (id >= 0)
		return show_set(id);
	if (lim)
		limits();
	if (sum)
		summary();
	if (!lim && !sum)
		list_sets();
	return 0;
}
