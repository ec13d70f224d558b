/*
 * The networking ABI (kernel/net): socket system calls 60-79, the socket
 * address and option values (Linux's, so that the POSIX headers in
 * user/include read as on Linux), and Quiescent's own calls for
 * interfaces, the neighbour table and the per-layer counters.
 * Addresses and ports in these structures are in network byte order,
 * as in struct sockaddr_in.
 */
#ifndef _UAPI_NET_H
#define _UAPI_NET_H

#include <stdint.h>

#define SYS_socket		60	/* (domain, type, protocol) -> fd */
#define SYS_bind		61	/* (fd, const struct qs_sockaddr_in *, addrlen) */
#define SYS_connect		62	/* (fd, addr, addrlen): the default destination; AF_UNSPEC clears it */
#define SYS_sendto		63	/* (fd, buf, len, flags, addr or NULL, addrlen) -> bytes */
#define SYS_recvfrom		64	/* (fd, buf, len, flags, addr or NULL, &addrlen) -> bytes */
#define SYS_setsockopt		65	/* (fd, level, name, const void *val, len) */
#define SYS_getsockopt		66	/* (fd, level, name, void *val, &len) */
#define SYS_getsockname		67	/* (fd, addr, &addrlen) */
#define SYS_getpeername		68	/* (fd, addr, &addrlen) */
#define SYS_shutdown		69	/* (fd, how): SHUT_RD wakes blocked readers */
#define SYS_qs_netif		70	/* (op, struct qs_ifreq *): list and configure interfaces */
#define SYS_qs_netstat		71	/* (struct qs_netstat *, size) -> size copied */
#define SYS_qs_neigh		72	/* (op, index, struct qs_neighinfo *): the ARP cache */

/* Families, types, protocols (Linux's values). */
#define QS_AF_UNSPEC		0
#define QS_AF_INET		2
#define QS_SOCK_DGRAM		2
#define QS_SOCK_RAW		3
#define QS_SOCK_NONBLOCK	04000	/* or-ed into the type, as on Linux */
#define QS_IPPROTO_IP		0
#define QS_IPPROTO_ICMP		1
#define QS_IPPROTO_UDP		17

/* send/recv flags. */
#define QS_MSG_PEEK		0x02
#define QS_MSG_TRUNC		0x20
#define QS_MSG_DONTWAIT		0x40

/* shutdown(). */
#define QS_SHUT_RD		0
#define QS_SHUT_WR		1
#define QS_SHUT_RDWR		2

/* Socket options. */
#define QS_SOL_SOCKET		1
#define QS_SO_TYPE		3
#define QS_SO_ERROR		4
#define QS_SO_BROADCAST		6
#define QS_SO_RCVBUF		8
#define QS_SO_RCVTIMEO		20	/* struct qs_timeval; zero: block forever */
#define QS_SOL_IP		0
#define QS_IP_TTL		2

#define QS_INADDR_ANY		0x00000000u
#define QS_INADDR_BROADCAST	0xffffffffu

struct qs_in_addr {
	uint32_t s_addr;		/* network byte order */
};

struct qs_sockaddr_in {
	uint16_t sin_family;		/* QS_AF_INET */
	uint16_t sin_port;		/* network byte order */
	struct qs_in_addr sin_addr;
	uint8_t sin_zero[8];
};

struct qs_timeval {
	int64_t tv_sec;
	int64_t tv_usec;
};

/* ---- Interfaces: qs_netif(op, &req). */
#define QS_NETIF_GET		0	/* req.index in; the rest out; -ENODEV past the last */
#define QS_NETIF_SET_ADDR	1	/* req.name, req.addr, req.netmask */
#define QS_NETIF_UP		2	/* req.name */
#define QS_NETIF_DOWN		3	/* req.name */
#define QS_NETIF_GET_GW		4	/* req.addr out (0: none) */
#define QS_NETIF_SET_GW		5	/* req.addr (0: remove) */

#define QS_IFNAMSIZ		16

#define QS_IFF_UP		0x1
#define QS_IFF_BROADCAST	0x2
#define QS_IFF_LOOPBACK		0x8
#define QS_IFF_RUNNING		0x40	/* carrier (link) present */

struct qs_ifreq {
	uint32_t index;
	char name[QS_IFNAMSIZ];
	char driver[QS_IFNAMSIZ];
	uint32_t flags;
	uint32_t mtu;
	uint8_t mac[6];
	uint16_t speed_mbps;		/* 0 when the link is down or unknown */
	uint32_t addr, netmask;		/* network byte order */
	uint64_t rx_packets, rx_bytes, rx_errors, rx_dropped;
	uint64_t rx_length_errors;	/* runts, frames spanning descriptors, oversize */
	uint64_t rx_missed;		/* the device had no descriptor (its own count) */
	uint64_t tx_packets, tx_bytes, tx_errors, tx_dropped;
	uint64_t interrupts, polls;	/* hard interrupts taken, NAPI polls run */
	uint64_t link_changes;
};

/* ---- The neighbour (ARP) table: qs_neigh(op, index, &info). */
#define QS_NEIGH_GET		0	/* the index-th entry; -ENOENT past the last */
#define QS_NEIGH_FLUSH		1	/* drop every entry (root only) */

#define QS_NUD_INCOMPLETE	1
#define QS_NUD_REACHABLE	2
#define QS_NUD_FAILED		3

struct qs_neighinfo {
	uint32_t addr;			/* network byte order */
	uint8_t mac[6];
	uint8_t state;			/* QS_NUD_* */
	uint8_t probes;
	char dev[QS_IFNAMSIZ];
	uint32_t age_ms;		/* since it was last confirmed */
	uint32_t queued;		/* packets waiting for the answer */
};

/*
 * The per-layer counters (netstat), one list for both sides: the kernel
 * makes its enum from it, netstat its names. Each is a count since boot.
 */
#define QS_NET_MIB(X)									\
	X(eth_in_frames,	"Ethernet frames received")				\
	X(eth_in_runts,		"frames shorter than an Ethernet header (dropped)")	\
	X(eth_in_other_host,	"frames for another MAC address (dropped)")		\
	X(eth_in_unknown_type,	"frames of an unknown EtherType (dropped)")		\
	X(eth_out_frames,	"Ethernet frames sent")					\
	X(arp_in,		"ARP packets received")					\
	X(arp_in_errors,	"ARP packets malformed (dropped)")			\
	X(arp_in_requests,	"ARP requests for one of our addresses")		\
	X(arp_in_replies,	"ARP replies received")					\
	X(arp_in_ignored,	"ARP packets neither for us nor about a known neighbour")	\
	X(arp_out_requests,	"ARP requests sent")					\
	X(arp_out_replies,	"ARP replies sent")					\
	X(arp_queue_drops,	"packets dropped while waiting for an ARP reply")	\
	X(arp_failed,		"resolutions given up after the last probe")		\
	X(neigh_created,	"neighbour entries created")				\
	X(neigh_expired,	"neighbour entries expired")				\
	X(neigh_table_full,	"neighbour entries refused: table full")		\
	X(ip_in_receives,	"IP packets received")					\
	X(ip_in_hdr_errors,	"IP header errors (all kinds below, dropped)")		\
	X(ip_in_truncated,	"IP packets shorter than their header or total length")	\
	X(ip_in_bad_version,	"IP packets not version 4")				\
	X(ip_in_bad_ihl,	"IP headers shorter than 20 bytes")			\
	X(ip_in_csum_errors,	"IP header checksum errors")				\
	X(ip_in_ttl_zero,	"IP packets with TTL 0")				\
	X(ip_in_bad_options,	"IP options that run past the header")			\
	X(ip_in_options,	"IP packets with (valid, ignored) options")		\
	X(ip_in_bad_src,	"IP packets from a broadcast or multicast source")	\
	X(ip_in_frags_dropped,	"IP fragments (no reassembly: dropped)")		\
	X(ip_in_addr_errors,	"IP packets not for this host, not forwarded")		\
	X(ip_in_no_routes,	"IP packets to forward with no route (ICMP net unreachable)")	\
	X(ip_in_discards,	"IP packets dropped: no memory for their route")	\
	X(ip_forw_datagrams,	"IP packets forwarded")					\
	X(ip_forw_ttl_exceeded,	"IP packets not forwarded: TTL exceeded")		\
	X(ip_forw_too_big,	"IP packets not forwarded: larger than the MTU out")	\
	X(ip_in_unknown_protos,	"IP packets of an unknown protocol")			\
	X(ip_in_delivers,	"IP packets delivered to ICMP, UDP or raw sockets")	\
	X(ip_out_requests,	"IP packets sent")					\
	X(ip_out_no_routes,	"IP packets with no route")				\
	X(ip_out_discards,	"IP packets dropped on output (no memory, queue full)")	\
	X(icmp_in_msgs,		"ICMP messages received")				\
	X(icmp_in_errors,	"ICMP messages malformed or with a bad checksum")	\
	X(icmp_in_echos,	"ICMP echo requests received")				\
	X(icmp_in_echo_reps,	"ICMP echo replies received")				\
	X(icmp_in_dest_unreachs, "ICMP destination unreachable received")		\
	X(icmp_out_msgs,	"ICMP messages sent")					\
	X(icmp_out_echo_reps,	"ICMP echo replies sent")				\
	X(icmp_out_dest_unreachs, "ICMP destination unreachable sent")		\
	X(icmp_out_time_excds,	"ICMP time exceeded sent")				\
	X(icmp_out_rate_limited, "ICMP errors not sent (rate limit)")			\
	X(udp_in_datagrams,	"UDP datagrams delivered to a socket")			\
	X(udp_in_errors,	"UDP datagrams malformed (length)")			\
	X(udp_in_csum_errors,	"UDP checksum errors")					\
	X(udp_no_ports,		"UDP datagrams to a port nobody has bound")		\
	X(udp_rcvbuf_errors,	"UDP datagrams dropped: receive buffer full")		\
	X(udp_out_datagrams,	"UDP datagrams sent")					\
	X(raw_in,		"packets queued on raw sockets")			\
	X(raw_rcvbuf_errors,	"packets dropped: raw socket receive buffer full")	\
	X(dev_backlog_drops,	"packets dropped: per-CPU backlog full")		\
	X(dev_tx_queue_drops,	"packets dropped: device transmit queue full")		\
	X(dev_tx_link_down,	"packets dropped: interface down or no carrier")	\
	X(softnet_processed,	"packets taken from devices by NET_RX")			\
	X(softnet_time_squeeze,	"NET_RX passes that ran out of budget or time")		\
	X(skb_alloc_failures,	"packet buffers not allocated (no memory)")

#define QS_NET_MIB_ENUM(name, desc)	QS_NET_##name,
enum { QS_NET_MIB(QS_NET_MIB_ENUM) QS_NET_MIB_MAX };
#undef QS_NET_MIB_ENUM

struct qs_netstat {
	uint64_t skbs_alive;		/* packet buffers allocated, not yet freed */
	uint64_t skb_allocs, skb_frees;
	uint64_t sockets_alive;
	uint64_t neigh_entries;
	uint64_t nr_mib;		/* QS_NET_MIB_MAX of the kernel that answered */
	uint64_t mib[QS_NET_MIB_MAX];
};

#endif
