/*
 * Quiescent's own network calls (include/uapi/net.h): interfaces
 * (ifconfig), the neighbour table and the per-layer counters (netstat).
 * Each returns 0 (or a count) or -1 with errno set.
 */
#ifndef _USER_QS_NET_H
#define _USER_QS_NET_H

#include <sys/socket.h>

int qs_netif(int op, struct qs_ifreq *req);
int qs_netstat(struct qs_netstat *st);
int qs_neigh(int op, int index, struct qs_neighinfo *info);

/* The counters' names and descriptions, in QS_NET_MIB order. */
extern const char *const qs_net_mib_names[QS_NET_MIB_MAX];
extern const char *const qs_net_mib_descs[QS_NET_MIB_MAX];
/* The index of a counter by name, or -1. */
int qs_net_mib_find(const char *name);

#endif
