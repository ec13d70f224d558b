/* Sorting small arrays (kernel/lib/sort.c): benchmarks sort their samples
 * to print percentiles. */
#ifndef _SORT_H
#define _SORT_H

#include <types.h>

void sort_u64(u64 *a, int n);

#endif
