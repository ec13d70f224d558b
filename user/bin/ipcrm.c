/*
 * ipcrm -s id [-s id ...]: remove SysV semaphore sets (IPC_RMID), with
 * util-linux's messages and exit status (1 if any removal failed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/ipc.h>
#include <sys/sem.h>

int main(int argc, char **argv)
{
	int bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: ipcrm -s <semid> [-s <semid>...]\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		char *end;
		long id;

		if (strcmp(argv[i], "-s") || i + 1 >= argc) {
			fprintf(stderr, "ipcrm: unknown or incomplete option '%s' (only -s <semid>)\n",
				argv[i]);
			return 1;
		}
		id = strtol(argv[++i], &end, 10);
		if (*end || end == argv[i] || id < 0 || id > 0x7fffffff) {
			fprintf(stderr, "ipcrm: failed to parse argument: '%s'\n", argv[i]);
			bad = 1;
			continue;
		}
		if (semctl((int)id, 0, IPC_RMID) == 0)
			continue;
		bad = 1;
		if (errno == EPERM || errno == EACCES)
			fprintf(stderr, "ipcrm: permission denied for id (%ld)\n", id);
		else if (errno == EIDRM)
			fprintf(stderr, "ipcrm: already removed id (%ld)\n", id);
		else
			fprintf(stderr, "ipcrm: invalid id (%ld)\n", id);
	}
	return bad;
}
