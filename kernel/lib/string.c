/* Memory and string functions. GCC may emit calls to memset/memcpy itself. */
#include <string.h>
#include <errno.h>

#ifdef CONFIG_KASAN
#include <kasan.h>

/* The instructions below are not instrumented: say what they touch. */
void *memset(void *d, int c, size_t n)
{
	kasan_check_write(d, n);
	return __memset(d, c, n);
}

void *memcpy(void *d, const void *s, size_t n)
{
	kasan_check_read(s, n);
	kasan_check_write(d, n);
	return __memcpy(d, s, n);
}
#define memset __memset
#define memcpy __memcpy
#endif

void *memset(void *d, int c, size_t n)
{
	void *ret = d;
	__asm__ __volatile__("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return ret;
}

void *memcpy(void *d, const void *s, size_t n)
{
	void *ret = d;
	__asm__ __volatile__("rep movsb" : "+D"(d), "+S"(s), "+c"(n) :: "memory");
	return ret;
}

#ifdef CONFIG_KASAN
#undef memset
#undef memcpy
#endif

void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	if (dp <= sp || dp >= sp + n)
		return memcpy(d, s, n);
	while (n--)
		dp[n] = sp[n];
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (; *s; s++)
		if (*s == (char)c)
			return (char *)s;
	return c ? NULL : (char *)s;
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	do {
		if (*s == (char)c)
			last = s;
	} while (*s++);
	return (char *)last;
}

size_t strlcpy(char *d, const char *s, size_t n)
{
	size_t len = strlen(s);

	if (n) {
		size_t k = len < n - 1 ? len : n - 1;
		memcpy(d, s, k);
		d[k] = 0;
	}
	return len;
}

/*
 * Copies s into d (n bytes) reading at most n bytes of s, so s need not be
 * terminated beyond them (strlcpy() reads all of s for its return value).
 * Returns s's length, or -E2BIG when it does not fit (d then holds what
 * did, terminated); d is always terminated when n > 0.
 */
ssize_t strscpy(char *d, const char *s, size_t n)
{
	size_t len;

	if (!n)
		return -E2BIG;
	len = strnlen(s, n);
	if (len == n) {
		memcpy(d, s, n - 1);
		d[n - 1] = 0;
		return -E2BIG;
	}
	memcpy(d, s, len + 1);
	return len;
}

char *strstr(const char *h, const char *n)
{
	size_t ln = strlen(n);

	for (; *h; h++)
		if (!strncmp(h, n, ln))
			return (char *)h;
	return ln ? NULL : (char *)h;
}

/* Shell-style glob with '*' and '?', used to choose tests by name. */
bool glob_match(const char *pat, const char *s)
{
	if (!*pat)
		return !*s;
	if (*pat == '*')
		return glob_match(pat + 1, s) || (*s && glob_match(pat, s + 1));
	if (*s && (*pat == '?' || *pat == *s))
		return glob_match(pat + 1, s + 1);
	return false;
}

int kstrtoul(const char *s, unsigned int base, unsigned long *res)
{
	unsigned long v = 0;
	const char *p = s;

	if (base == 0) {
		base = 10;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			base = 16, p += 2;
	}
	if (!*p)
		return -EINVAL;
	for (; *p; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'z')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'Z')
			d = *p - 'A' + 10;
		else
			return -EINVAL;
		if (d >= base)
			return -EINVAL;
		if (v > (~0UL - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*res = v;
	return 0;
}

int kstrtol(const char *s, unsigned int base, long *res)
{
	unsigned long v;
	int neg = (*s == '-'), err;

	err = kstrtoul(s + neg, base, &v);
	if (err)
		return err;
	if (v > (unsigned long)__LONG_MAX__ + neg)
		return -ERANGE;
	*res = neg ? -(long)v : (long)v;
	return 0;
}
