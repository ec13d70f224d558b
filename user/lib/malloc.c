/*
 * malloc: first fit over a free list, memory from sbrk(). Each block has
 * a 16-byte header with its size; free() puts a block back on the list,
 * sorted by address, and merges it with its neighbours.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

struct block {
	size_t size;			/* bytes after the header */
	struct block *next;		/* free list only */
};

#define HDR		sizeof(struct block)
#define ROUND(n)	(((n) + 15) & ~(size_t)15)
#define GROW_MIN	(16 * 1024)

static struct block *free_list;

static void insert_free(struct block *b)
{
	struct block **pp = &free_list;

	while (*pp && *pp < b)
		pp = &(*pp)->next;
	b->next = *pp;
	*pp = b;
	if (b->next && (char *)b + HDR + b->size == (char *)b->next) {
		b->size += HDR + b->next->size;
		b->next = b->next->next;
	}
	if (pp != &free_list) {
		struct block *prev = (struct block *)((char *)pp - offsetof(struct block, next));
		if ((char *)prev + HDR + prev->size == (char *)b) {
			prev->size += HDR + b->size;
			prev->next = b->next;
		}
	}
}

void *malloc(size_t n)
{
	struct block **pp, *b;
	size_t need;

	if (!n)
		n = 1;
	if (n > (1UL << 30))
		goto nomem;
	n = ROUND(n);
	for (;;) {
		for (pp = &free_list; (b = *pp); pp = &b->next) {
			if (b->size < n)
				continue;
			if (b->size >= n + HDR + 16) {	/* split: keep the tail free */
				struct block *rest = (struct block *)((char *)b + HDR + n);
				rest->size = b->size - n - HDR;
				rest->next = b->next;
				b->size = n;
				*pp = rest;
			} else {
				*pp = b->next;
			}
			return (char *)b + HDR;
		}
		need = n + HDR > GROW_MIN ? n + HDR : GROW_MIN;
		b = sbrk(need);
		if (b == (void *)-1)
			goto nomem;
		b->size = need - HDR;
		insert_free(b);
	}
nomem:
	errno = ENOMEM;
	return NULL;
}

void free(void *p)
{
	if (p)
		insert_free((struct block *)((char *)p - HDR));
}

void *calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > (size_t)-1 / size)
		return NULL;
	p = malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *realloc(void *p, size_t n)
{
	struct block *b;
	void *q;

	if (!p)
		return malloc(n);
	b = (struct block *)((char *)p - HDR);
	if (b->size >= n)
		return p;
	q = malloc(n);
	if (q) {
		memcpy(q, p, b->size);
		free(p);
	}
	return q;
}
