/*
 * SipHash-2-4 (include/siphash.h): two compression rounds per 8-byte
 * word, the length in the last word's top byte, four finalization
 * rounds. The state starts as the key xor "somepseudorandomlygenerated
 * bytes", as the paper specifies. kernel/net/route_test.c checks it
 * against the paper's test vector.
 */
#include <siphash.h>
#include <string.h>

static inline u64 rol64(u64 x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

#define SIPROUND							\
	do {								\
		v0 += v1; v1 = rol64(v1, 13); v1 ^= v0; v0 = rol64(v0, 32); \
		v2 += v3; v3 = rol64(v3, 16); v3 ^= v2;			\
		v0 += v3; v3 = rol64(v3, 21); v3 ^= v0;			\
		v2 += v1; v1 = rol64(v1, 17); v1 ^= v2; v2 = rol64(v2, 32); \
	} while (0)

#define SIPHASH_START(key)						\
	u64 v0 = 0x736f6d6570736575ULL ^ (key)->key[0];			\
	u64 v1 = 0x646f72616e646f6dULL ^ (key)->key[1];			\
	u64 v2 = 0x6c7967656e657261ULL ^ (key)->key[0];			\
	u64 v3 = 0x7465646279746573ULL ^ (key)->key[1]

#define SIPHASH_WORD(m)							\
	do {								\
		v3 ^= (m);						\
		SIPROUND;						\
		SIPROUND;						\
		v0 ^= (m);						\
	} while (0)

#define SIPHASH_END							\
	do {								\
		v2 ^= 0xff;						\
		SIPROUND;						\
		SIPROUND;						\
		SIPROUND;						\
		SIPROUND;						\
	} while (0)

u64 siphash(const void *data, size_t len, const siphash_key_t *key)
{
	const u8 *p = data;
	size_t full = len & ~(size_t)7;
	u64 b = (u64)len << 56, m;
	SIPHASH_START(key);

	for (size_t i = 0; i < full; i += 8) {
		memcpy(&m, p + i, 8);		/* x86 is little-endian, as SipHash reads */
		SIPHASH_WORD(m);
	}
	for (size_t i = 0; i < (len & 7); i++)
		b |= (u64)p[full + i] << (8 * i);
	SIPHASH_WORD(b);
	SIPHASH_END;
	return v0 ^ v1 ^ v2 ^ v3;
}

u64 siphash_2u64(u64 a, u64 b, const siphash_key_t *key)
{
	SIPHASH_START(key);

	SIPHASH_WORD(a);
	SIPHASH_WORD(b);
	SIPHASH_WORD(16ULL << 56);
	SIPHASH_END;
	return v0 ^ v1 ^ v2 ^ v3;
}
