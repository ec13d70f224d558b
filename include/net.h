/*
 * The network stack's one entry point for kmain (kernel/net/core.c).
 * Everything else about networking is in kernel/net/ and, for user
 * programs, include/uapi/net.h.
 */
#ifndef _NET_H
#define _NET_H

/* The device layer, protocols, loopback, the NIC drivers, then the
 * command line's addresses. Needs PCI scanned and the timers running. */
void net_init(void);

#endif
