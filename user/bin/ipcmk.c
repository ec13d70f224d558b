/*
 * ipcmk -S nsems [-p perms]: make a SysV semaphore set (IPC_PRIVATE) and
 * print its id, as util-linux's ipcmk does ("Semaphore id: N"). For
 * trying ipcs and ipcrm from the shell.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>

int main(int argc, char **argv)
{
	int nsems = 0, perms = 0644, id;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-S"))
			nsems = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-p"))
			perms = strtol(argv[i + 1], NULL, 8);
	}
	if (nsems <= 0) {
		fprintf(stderr, "usage: ipcmk -S <nsems> [-p <perms, octal>]\n");
		return 1;
	}
	id = semget(IPC_PRIVATE, nsems, perms | IPC_CREAT);
	if (id < 0) {
		perror("ipcmk: create semaphore failed");
		return 1;
	}
	printf("Semaphore id: %d\n", id);
	return 0;
}
