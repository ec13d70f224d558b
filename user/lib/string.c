/* String and memory functions. */
#include <string.h>
#include <stdlib.h>
#include <errno.h>

void *memcpy(void *d, const void *s, size_t n)
{
	char *dd = d;
	const char *ss = s;

	while (n--)
		*dd++ = *ss++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	char *dd = d;
	const char *ss = s;

	if (dd < ss)
		return memcpy(d, s, n);
	while (n--)
		dd[n] = ss[n];
	return d;
}

void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;

	while (n--)
		*p++ = c;
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
	size_t n = 0;

	while (s[n])
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
			break;
	}
	return 0;
}

char *strcpy(char *d, const char *s)
{
	char *r = d;

	while ((*d++ = *s++))
		;
	return r;
}

char *strncpy(char *d, const char *s, size_t n)
{
	size_t i = 0;

	for (; i < n && s[i]; i++)
		d[i] = s[i];
	for (; i < n; i++)
		d[i] = 0;
	return d;
}

char *strcat(char *d, const char *s)
{
	strcpy(d + strlen(d), s);
	return d;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

char *strdup(const char *s)
{
	char *d = malloc(strlen(s) + 1);

	return d ? strcpy(d, s) : NULL;
}

size_t strspn(const char *s, const char *accept)
{
	size_t n = 0;

	while (s[n] && strchr(accept, s[n]))
		n++;
	return n;
}

size_t strcspn(const char *s, const char *reject)
{
	size_t n = 0;

	while (s[n] && !strchr(reject, s[n]))
		n++;
	return n;
}

char *strtok(char *s, const char *delim)
{
	static char *next;
	char *tok;

	if (s)
		next = s;
	if (!next)
		return NULL;
	next += strspn(next, delim);
	if (!*next)
		return next = NULL;
	tok = next;
	next += strcspn(next, delim);
	if (*next)
		*next++ = 0;
	else
		next = NULL;
	return tok;
}

char *strerror(int err)
{
	switch (err) {
	case 0:		return "Success";
	case EPERM:	return "Operation not permitted";
	case ENOENT:	return "No such file or directory";
	case ESRCH:	return "No such process";
	case EINTR:	return "Interrupted system call";
	case E2BIG:	return "Argument list too long";
	case ENOEXEC:	return "Exec format error";
	case EBADF:	return "Bad file descriptor";
	case ECHILD:	return "No child processes";
	case EAGAIN:	return "Resource temporarily unavailable";
	case ENOMEM:	return "Cannot allocate memory";
	case EFAULT:	return "Bad address";
	case EINVAL:	return "Invalid argument";
	case ENAMETOOLONG: return "File name too long";
	case ENOSYS:	return "Function not implemented";
	}
	return "Unknown error";
}
