/*
 * kmalloc: general-purpose kernel allocation (kernel/mm/kmalloc.c).
 *
 * Size classes from 16 bytes to a few pages; larger requests go straight
 * to the page allocator. Each CPU keeps its own cache of free objects per
 * class, so the common case takes no shared lock. With
 * CONFIG_DEBUG_KMALLOC_POISON, freed objects are filled with POISON_FREE
 * and the poison is checked when the object is handed out again: a write
 * after free is reported (and panics) with the address and the class.
 * Safe from any context (interrupts included) but NMI.
 */
#ifndef _KMALLOC_H
#define _KMALLOC_H

#include <types.h>

#define POISON_FREE	0x6b	/* freed memory reads as 0x6b6b6b6b... */

#define KMALLOC_MIN_SIZE	16	/* and the minimum alignment */
#define KMALLOC_MAX_CLASS	4096	/* larger: whole pages (2^order) */
#define KMALLOC_NR_CLASSES	9	/* 16, 32, ..., 4096 */

void kmalloc_init(void);
void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(const void *p);
size_t ksize(const void *p);

struct kmalloc_stats {
	long objects;		/* live objects (allocated, not yet freed) */
	long bytes;		/* live bytes, counted as ksize() (class or pages) */
	unsigned long allocs, frees, poison_errors;
	unsigned long slab_pages;	/* pages carved into objects (never returned) */
};
/* Sums over all CPUs. */
void kmalloc_get_stats(struct kmalloc_stats *s);
void kmalloc_show_stats(void);

#endif
