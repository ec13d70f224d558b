/* String and memory functions. */
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <stdio.h>

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

/* The first place needle occurs in haystack; haystack itself for "". */
char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	for (; *haystack; haystack++)
		if (!strncmp(haystack, needle, n))
			return (char *)haystack;
	return n ? NULL : (char *)haystack;
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

/* Linux's messages, for the values in include/uapi/errno.h. */
static const char *const errmsg[] = {
	[0]		= "Success",
	[EPERM]		= "Operation not permitted",
	[ENOENT]	= "No such file or directory",
	[ESRCH]		= "No such process",
	[EINTR]		= "Interrupted system call",
	[EIO]		= "Input/output error",
	[ENXIO]		= "No such device or address",
	[E2BIG]		= "Argument list too long",
	[ENOEXEC]	= "Exec format error",
	[EBADF]		= "Bad file descriptor",
	[ECHILD]	= "No child processes",
	[EAGAIN]	= "Resource temporarily unavailable",
	[ENOMEM]	= "Cannot allocate memory",
	[EACCES]	= "Permission denied",
	[EFAULT]	= "Bad address",
	[EBUSY]		= "Device or resource busy",
	[EEXIST]	= "File exists",
	[EXDEV]		= "Invalid cross-device link",
	[ENODEV]	= "No such device",
	[ENOTDIR]	= "Not a directory",
	[EISDIR]	= "Is a directory",
	[EINVAL]	= "Invalid argument",
	[ENFILE]	= "Too many open files in system",
	[EMFILE]	= "Too many open files",
	[ENOTTY]	= "Inappropriate ioctl for device",
	[EFBIG]		= "File too large",
	[ENOSPC]	= "No space left on device",
	[ESPIPE]	= "Illegal seek",
	[EROFS]		= "Read-only file system",
	[EPIPE]		= "Broken pipe",
	[EDOM]		= "Numerical argument out of domain",
	[ERANGE]	= "Numerical result out of range",
	[EDEADLK]	= "Resource deadlock avoided",
	[ENAMETOOLONG]	= "File name too long",
	[ENOSYS]	= "Function not implemented",
	[ENOTEMPTY]	= "Directory not empty",
	[ENOMSG]	= "No message of desired type",
	[EIDRM]		= "Identifier removed",
	[EOVERFLOW]	= "Value too large for defined data type",
	[ENOTSOCK]	= "Socket operation on non-socket",
	[EDESTADDRREQ]	= "Destination address required",
	[EMSGSIZE]	= "Message too long",
	[EPROTOTYPE]	= "Protocol wrong type for socket",
	[ENOPROTOOPT]	= "Protocol not available",
	[EPROTONOSUPPORT]	= "Protocol not supported",
	[EOPNOTSUPP]	= "Operation not supported",
	[EAFNOSUPPORT]	= "Address family not supported by protocol",
	[EADDRINUSE]	= "Address already in use",
	[EADDRNOTAVAIL]	= "Cannot assign requested address",
	[ENETDOWN]	= "Network is down",
	[ENETUNREACH]	= "Network is unreachable",
	[ECONNRESET]	= "Connection reset by peer",
	[ENOBUFS]	= "No buffer space available",
	[EISCONN]	= "Transport endpoint is already connected",
	[ENOTCONN]	= "Transport endpoint is not connected",
	[ETIMEDOUT]	= "Connection timed out",
	[ECONNREFUSED]	= "Connection refused",
	[EHOSTUNREACH]	= "No route to host",
	[EALREADY]	= "Operation already in progress",
	[EINPROGRESS]	= "Operation now in progress",
};

char *strerror(int err)
{
	static char unknown[32];

	if (err >= 0 && err < (int)(sizeof(errmsg) / sizeof(errmsg[0])) && errmsg[err])
		return (char *)errmsg[err];
	snprintf(unknown, sizeof(unknown), "Unknown error %d", err);
	return unknown;
}
