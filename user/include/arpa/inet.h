/* Address conversions (POSIX <arpa/inet.h>; user/lib/inet.c). */
#ifndef _USER_ARPA_INET_H
#define _USER_ARPA_INET_H

#include <netinet/in.h>

/* "a.b.c.d" to network order; (in_addr_t)-1 if it is not one. */
in_addr_t inet_addr(const char *s);
/* 1 and *a filled, or 0 if s is not "a.b.c.d". */
int inet_aton(const char *s, struct in_addr *a);
/* A static buffer, overwritten by the next call. */
char *inet_ntoa(struct in_addr a);
/* AF_INET only: 1, 0 (not an address) or -1 (EAFNOSUPPORT). */
int inet_pton(int af, const char *src, void *dst);
const char *inet_ntop(int af, const void *src, char *dst, socklen_t size);

#endif
