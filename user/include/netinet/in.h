/* Internet addresses (POSIX <netinet/in.h>). */
#ifndef _USER_NETINET_IN_H
#define _USER_NETINET_IN_H

#include <stdint.h>
#include <sys/socket.h>

typedef uint32_t in_addr_t;
typedef uint16_t in_port_t;

struct in_addr {
	in_addr_t s_addr;		/* network byte order */
};

struct sockaddr_in {
	sa_family_t sin_family;
	in_port_t sin_port;		/* network byte order */
	struct in_addr sin_addr;
	unsigned char sin_zero[8];
};

#define IPPROTO_IP	QS_IPPROTO_IP
#define IPPROTO_ICMP	QS_IPPROTO_ICMP
#define IPPROTO_UDP	QS_IPPROTO_UDP
#define IP_TTL		QS_IP_TTL

#define INADDR_ANY		((in_addr_t)0x00000000)
#define INADDR_BROADCAST	((in_addr_t)0xffffffff)
#define INADDR_LOOPBACK		((in_addr_t)0x7f000001)	/* host order, as POSIX has it */
#define INET_ADDRSTRLEN		16

static inline uint16_t htons(uint16_t x) { return __builtin_bswap16(x); }
static inline uint16_t ntohs(uint16_t x) { return __builtin_bswap16(x); }
static inline uint32_t htonl(uint32_t x) { return __builtin_bswap32(x); }
static inline uint32_t ntohl(uint32_t x) { return __builtin_bswap32(x); }

#endif
