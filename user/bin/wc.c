/*
 * wc [-l | -w | -c]: count the lines, words and bytes of standard input
 * (or one of them) to the end of file: `ls /bin | wc -l`. It finishes
 * only when every write end of its pipe is closed, so a pipeline that
 * leaks one hangs here.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[4096];
	unsigned long lines = 0, words = 0, bytes = 0;
	bool in_word = false;
	long n;

	while ((n = read(0, buf, sizeof(buf))) > 0) {
		bytes += n;
		for (long i = 0; i < n; i++) {
			char c = buf[i];
			bool blank = c == ' ' || c == '\t' || c == '\n';

			lines += c == '\n';
			words += !blank && !in_word;
			in_word = !blank;
		}
	}
	if (n < 0) {
		perror("wc");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "-l"))
		printf("%lu\n", lines);
	else if (argc > 1 && !strcmp(argv[1], "-w"))
		printf("%lu\n", words);
	else if (argc > 1 && !strcmp(argv[1], "-c"))
		printf("%lu\n", bytes);
	else
		printf("%lu %lu %lu\n", lines, words, bytes);
	return 0;
}
