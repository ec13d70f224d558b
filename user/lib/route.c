/* The routing calls (include/uapi/route.h, 80-83) and their parsers. */
#include <qs_route.h>
#include <sys/syscall.h>
#include <arpa/inet.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>

static long ret(long r)
{
	if (r < 0 && r > -4096) {
		errno = -r;
		return -1;
	}
	return r;
}

int qs_route(int op, struct qs_rtentry *entries, int max)
{
	return ret(__syscall3(SYS_qs_route, op, entries, max));
}

int qs_route_get(struct qs_rtlookup *lookup)
{
	return ret(__syscall1(SYS_qs_route_get, lookup));
}

int qs_rtstat(struct qs_rtstat *st)
{
	return ret(__syscall2(SYS_qs_rtstat, st, sizeof(*st)));
}

long qs_rtcache(int op, unsigned long arg, struct qs_rtcache_entry *entries, int max)
{
	return ret(__syscall6(SYS_qs_rtcache, (long)op, (long)arg, (long)entries, (long)max, 0, 0));
}

int qs_parse_prefix(const char *s, uint32_t *dst, uint8_t *len)
{
	const char *slash = strchr(s, '/');
	char addr[20];
	struct in_addr a;
	char *end;
	long l = 32;

	if (!strcmp(s, "default")) {
		*dst = 0;
		*len = 0;
		return 0;
	}
	if (slash) {
		if (slash - s >= (long)sizeof(addr))
			return -1;
		memcpy(addr, s, slash - s);
		addr[slash - s] = 0;
		l = strtol(slash + 1, &end, 10);
		if (end == slash + 1 || *end || l < 0 || l > 32)
			return -1;
	} else {
		if (strlen(s) >= sizeof(addr))
			return -1;
		strcpy(addr, s);
	}
	if (!inet_aton(addr, &a))
		return -1;
	*dst = a.s_addr;
	*len = l;
	return 0;
}

static const char *const mode_names[] = { "rcu", "rwlock", "off" };

const char *qs_rtcache_mode_name(int mode)
{
	return mode >= 0 && mode <= QS_RTCACHE_OFF ? mode_names[mode] : "?";
}

int qs_rtcache_mode_parse(const char *s)
{
	for (int m = 0; m <= QS_RTCACHE_OFF; m++)
		if (!strcmp(s, mode_names[m]))
			return m;
	return -1;
}
