/*
 * The Internet checksum (RFC 1071): the ones'-complement sum of 16-bit
 * words, folded and inverted. A header that carries its checksum sums
 * to 0xffff, so csum_fold() of it is 0. Summed in 32 bits with the
 * carries folded back at the end; the byte order takes care of itself
 * (RFC 1071 section 2(B)), so the words are added as they lie in memory.
 */
#include <net/ip.h>

u32 csum_partial(const void *buf, unsigned int len, u32 sum)
{
	const u8 *p = buf;
	u64 acc = sum;

	while (len >= 2) {
		acc += (u16)(p[0] | p[1] << 8);
		p += 2;
		len -= 2;
	}
	if (len)
		acc += p[0];
	while (acc >> 32)
		acc = (acc & 0xffffffff) + (acc >> 32);
	return (u32)acc;
}

u16 csum_fold(u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

u32 csum_tcpudp_nofold(u32 saddr, u32 daddr, u16 len, u8 proto, u32 sum)
{
	u64 acc = sum;

	acc += (saddr & 0xffff) + (saddr >> 16);
	acc += (daddr & 0xffff) + (daddr >> 16);
	acc += htons(proto);
	acc += htons(len);
	while (acc >> 32)
		acc = (acc & 0xffffffff) + (acc >> 32);
	return (u32)acc;
}
