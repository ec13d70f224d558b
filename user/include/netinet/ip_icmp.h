/* The IPv4 and ICMP headers, for raw sockets (ping). */
#ifndef _USER_NETINET_IP_ICMP_H
#define _USER_NETINET_IP_ICMP_H

#include <stdint.h>

struct iphdr {
	uint8_t ihl:4, version:4;
	uint8_t tos;
	uint16_t tot_len, id, frag_off;
	uint8_t ttl, protocol;
	uint16_t check;
	uint32_t saddr, daddr;
} __attribute__((packed));

struct icmphdr {
	uint8_t type, code;
	uint16_t checksum;
	uint16_t id, sequence;
} __attribute__((packed));

#define ICMP_ECHOREPLY		0
#define ICMP_DEST_UNREACH	3
#define ICMP_ECHO		8

#endif
