/* Byte order: x86 is little-endian; network order is big-endian. */
#ifndef _ARCH_BYTEORDER_H
#define _ARCH_BYTEORDER_H

#include <types.h>

static inline u16 htons(u16 x) { return __builtin_bswap16(x); }
static inline u16 ntohs(u16 x) { return __builtin_bswap16(x); }
static inline u32 htonl(u32 x) { return __builtin_bswap32(x); }
static inline u32 ntohl(u32 x) { return __builtin_bswap32(x); }

#endif
