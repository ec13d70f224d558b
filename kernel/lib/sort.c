/* Insertion sort: the benchmarks sort a few hundred samples at most. */
#include <sort.h>

void sort_u64(u64 *a, int n)
{
	for (int i = 1; i < n; i++) {
		u64 v = a[i];
		int j = i;

		while (j > 0 && a[j - 1] > v) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}
