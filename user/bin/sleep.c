/* sleep: for the given seconds (a decimal fraction is allowed: sleep 0.5). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 0 };
	char *frac;

	if (argc < 2) {
		fprintf(stderr, "usage: sleep seconds\n");
		return 2;
	}
	ts.tv_sec = strtoul(argv[1], &frac, 10);
	if (*frac == '.') {
		long scale = 100000000;
		for (frac++; *frac >= '0' && *frac <= '9' && scale; frac++, scale /= 10)
			ts.tv_nsec += (*frac - '0') * scale;
	}
	return nanosleep(&ts, NULL) ? 1 : 0;
}
