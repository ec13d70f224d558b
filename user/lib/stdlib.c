/* Numbers from strings, rand(). */
#include <stdlib.h>

static int digit(char c, int base)
{
	int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10 :
		c >= 'A' && c <= 'Z' ? c - 'A' + 10 : 99;
	return d < base ? d : -1;
}

unsigned long strtoul(const char *s, char **end, int base)
{
	unsigned long v = 0;
	int d;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '+')
		s++;
	if ((base == 0 || base == 16) && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	} else if (base == 0) {
		base = *s == '0' ? 8 : 10;
	}
	while ((d = digit(*s, base)) >= 0) {
		v = v * base + d;
		s++;
	}
	if (end)
		*end = (char *)s;
	return v;
}

long strtol(const char *s, char **end, int base)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '-')
		return -(long)strtoul(s + 1, end, base);
	return strtoul(s, end, base);
}

int atoi(const char *s)		{ return strtol(s, 0, 10); }
long atol(const char *s)	{ return strtol(s, 0, 10); }
int abs(int x)			{ return x < 0 ? -x : x; }
long labs(long x)		{ return x < 0 ? -x : x; }

static unsigned long long rand_state = 1;

void srand(unsigned int seed)
{
	rand_state = seed;
}

int rand(void)
{
	rand_state = rand_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (rand_state >> 33) & RAND_MAX;
}
