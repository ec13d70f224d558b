/* hello: who and where am I, and what were my arguments. */
#include <stdio.h>
#include <unistd.h>
#include <sched.h>

int main(int argc, char **argv)
{
	printf("hello from pid %d (parent %d) on cpu %d, uid %d, argc %d\n",
	       getpid(), getppid(), sched_getcpu(), getuid(), argc);
	for (int i = 0; i < argc; i++)
		printf("  argv[%d] = '%s'\n", i, argv[i]);
	return 0;
}
