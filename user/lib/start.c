/* From crt0 to main and back out through exit(). */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv);
void __libc_start(int argc, char **argv, char **envp);

char **environ;
int errno;

void __libc_start(int argc, char **argv, char **envp)
{
	environ = envp;
	exit(main(argc, argv));
}

void exit(int status)
{
	_exit(status);
}

void abort(void)
{
	_exit(134);
}
