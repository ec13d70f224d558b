/*
 * The fuzzers' random numbers: Marsaglia's xorshift64, one state per
 * process (each child seeds its own), cheap and the same from run to run
 * for a seed, which is what makes a fuzzing run repeatable.
 */
#ifndef _FUZZ_RND_H
#define _FUZZ_RND_H

static unsigned long long state;

static inline unsigned long long rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

#endif
