/* POSIX sockets (user/lib/socket.c): IPv4 datagram and raw ICMP sockets. */
#ifndef _USER_SYS_SOCKET_H
#define _USER_SYS_SOCKET_H

#include <sys/types.h>
#include "../../../include/uapi/net.h"	/* the ABI, shared with the kernel */

typedef unsigned int socklen_t;
typedef unsigned short sa_family_t;

struct sockaddr {
	sa_family_t sa_family;
	char sa_data[14];
};

#define AF_UNSPEC	QS_AF_UNSPEC
#define AF_INET		QS_AF_INET
#define PF_INET		AF_INET
#define SOCK_DGRAM	QS_SOCK_DGRAM
#define SOCK_RAW	QS_SOCK_RAW
#define SOCK_NONBLOCK	QS_SOCK_NONBLOCK

#define SOL_SOCKET	QS_SOL_SOCKET
#define SO_TYPE		QS_SO_TYPE
#define SO_ERROR	QS_SO_ERROR
#define SO_BROADCAST	QS_SO_BROADCAST
#define SO_RCVBUF	QS_SO_RCVBUF
#define SO_RCVTIMEO	QS_SO_RCVTIMEO

#define MSG_PEEK	QS_MSG_PEEK
#define MSG_TRUNC	QS_MSG_TRUNC
#define MSG_DONTWAIT	QS_MSG_DONTWAIT

#define SHUT_RD		QS_SHUT_RD
#define SHUT_WR		QS_SHUT_WR
#define SHUT_RDWR	QS_SHUT_RDWR

int socket(int domain, int type, int protocol);
int bind(int fd, const struct sockaddr *addr, socklen_t len);
int connect(int fd, const struct sockaddr *addr, socklen_t len);
ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *addr,
	       socklen_t alen);
ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr,
		 socklen_t *alen);
ssize_t send(int fd, const void *buf, size_t len, int flags);
ssize_t recv(int fd, void *buf, size_t len, int flags);
int setsockopt(int fd, int level, int name, const void *val, socklen_t len);
int getsockopt(int fd, int level, int name, void *val, socklen_t *len);
int getsockname(int fd, struct sockaddr *addr, socklen_t *len);
int getpeername(int fd, struct sockaddr *addr, socklen_t *len);
int shutdown(int fd, int how);

#endif
