/* <arpa/inet.h>: dotted-quad IPv4 addresses to and from network order. */
#include <arpa/inet.h>
#include <stdio.h>
#include <errno.h>

int inet_aton(const char *s, struct in_addr *a)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++) {
		unsigned int part = 0, digits = 0;

		while (*s >= '0' && *s <= '9' && digits < 4) {
			part = part * 10 + (unsigned int)(*s++ - '0');
			digits++;
		}
		if (!digits || part > 255)
			return 0;
		v = v << 8 | part;
		if (i < 3 && *s++ != '.')
			return 0;
	}
	if (*s)
		return 0;
	a->s_addr = htonl(v);
	return 1;
}

in_addr_t inet_addr(const char *s)
{
	struct in_addr a;

	return inet_aton(s, &a) ? a.s_addr : (in_addr_t)-1;
}

const char *inet_ntop(int af, const void *src, char *dst, socklen_t size)
{
	uint32_t v;

	if (af != AF_INET) {
		errno = EAFNOSUPPORT;
		return NULL;
	}
	v = ntohl(((const struct in_addr *)src)->s_addr);
	if ((socklen_t)snprintf(dst, size, "%u.%u.%u.%u", v >> 24, (v >> 16) & 0xff,
				(v >> 8) & 0xff, v & 0xff) >= size) {
		errno = ENOSPC;
		return NULL;
	}
	return dst;
}

char *inet_ntoa(struct in_addr a)
{
	static char buf[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &a, buf, sizeof(buf));
	return buf;
}

int inet_pton(int af, const char *src, void *dst)
{
	if (af != AF_INET) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	return inet_aton(src, dst);
}
