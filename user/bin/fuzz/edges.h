/*
 * The edge both fuzzers count (docs/fuzzing.md): KCOV gives the PCs of
 * the basic blocks a call ran, in order; an edge is AFL's hash of a block
 * and the one before it, hash(pc) ^ hash(prev) >> 1, so that A->B and
 * B->A differ and a block that follows itself still counts. The map is a
 * bit per edge, 2^18 of them (32 KiB: fork copies it).
 */
#ifndef _FUZZ_EDGES_H
#define _FUZZ_EDGES_H

#include <stdint.h>

#define MAP_BITS	18
#define MAP_MASK	((1u << MAP_BITS) - 1)
#define MAP_BYTES	(1u << (MAP_BITS - 3))

/* The edge from the block before (*prev, 0 at a call's start) to pc. */
static inline uint32_t fz_edge(uint64_t pc, uint32_t *prev)
{
	uint32_t cur = (uint32_t)((pc * 0x9e3779b97f4a7c15ULL) >> 40);
	uint32_t e = (cur ^ *prev) & MAP_MASK;

	*prev = cur >> 1;
	return e;
}

/* Set edge e; whether it was new. */
static inline int fz_mark(uint8_t *map, uint32_t e)
{
	int fresh = !(map[e >> 3] & (1 << (e & 7)));

	map[e >> 3] |= 1 << (e & 7);
	return fresh;
}

#endif
