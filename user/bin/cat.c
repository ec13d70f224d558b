/* cat [file...]: print files, or standard input (a pipe: `ls /bin | cat`) without one. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>

int main(int argc, char **argv)
{
	static char buf[4096];
	int status = 0;
	long n;

	if (argc == 1) {
		while ((n = read(0, buf, sizeof(buf))) > 0)
			write(1, buf, n);
		if (n < 0)
			perror("cat: stdin");
		return n < 0;
	}
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);

		if (fd < 0) {
			fprintf(stderr, "cat: %s: %s\n", argv[i], strerror(errno));
			status = 1;
			continue;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			write(1, buf, n);
		if (n < 0) {
			fprintf(stderr, "cat: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
		close(fd);
	}
	return status;
}
