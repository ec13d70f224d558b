/*
 * Routing calls (include/uapi/route.h, user/lib/route.c): the table
 * (route), the route cache's counters (rtstat), its mode and forwarding.
 * Each returns 0 (or a count, or a value) or -1 with errno set.
 */
#ifndef _USER_QS_ROUTE_H
#define _USER_QS_ROUTE_H

#include <stdint.h>
#include "../../include/uapi/route.h"	/* the ABI, shared with the kernel */

int qs_route(int op, struct qs_rtentry *entries, int max);
int qs_route_get(struct qs_rtlookup *lookup);
int qs_rtstat(struct qs_rtstat *st);
long qs_rtcache(int op, unsigned long arg, struct qs_rtcache_entry *entries, int max);

/* "10.1.0.0/16", "10.1.2.3" (/32) or "default" (0/0): 0, or -1 if malformed. */
int qs_parse_prefix(const char *s, uint32_t *dst, uint8_t *len);
/* A mode's name ("rcu", "rwlock", "off"), and the reverse (-1: none). */
const char *qs_rtcache_mode_name(int mode);
int qs_rtcache_mode_parse(const char *s);

#endif
