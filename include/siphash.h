/*
 * SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed hash, a
 * pseudorandom function of its input under a 128-bit secret key
 * (kernel/lib/siphash.c). A hash table keyed by what an outsider sends
 * (addresses in packets) uses it so that, not knowing the key, the
 * outsider cannot choose inputs that all land in one bucket.
 */
#ifndef _SIPHASH_H
#define _SIPHASH_H

#include <types.h>

typedef struct {
	u64 key[2];
} siphash_key_t;

/* Any length of bytes. */
u64 siphash(const void *data, size_t len, const siphash_key_t *key);
/* Two 64-bit words: the same as siphash() of their 16 little-endian bytes. */
u64 siphash_2u64(u64 a, u64 b, const siphash_key_t *key);

#endif
