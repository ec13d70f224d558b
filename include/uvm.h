/*
 * User address spaces (kernel/mm/uvm.c): one PML4 per process whose upper
 * half (entries 256..511) is the kernel's, shared by copying the entries,
 * and whose lower half holds the process's own pages, all mapped with the
 * user bit. Pages are allocated eagerly (no demand paging, no copy on
 * write): fork copies every page, exit frees every page. Layout constants
 * are in include/uapi/quiescent.h (QS_USER_*).
 */
#ifndef _UVM_H
#define _UVM_H

#include <types.h>
#include <uapi/quiescent.h>

#define USER_TOP	QS_USER_TOP

struct uvm {
	u64 *pml4;			/* direct-map address of the top table */
	phys_addr_t cr3;
	unsigned long brk_base, brk;	/* heap: [brk_base, brk) */
	long pages;			/* data pages and tables of the lower half */
};

/* Flags for uvm_map(). */
#define UVM_WRITE	1
#define UVM_EXEC	2

struct uvm *uvm_create(void);
void uvm_destroy(struct uvm *vm);
/* A copy of every page (fork). NULL if memory runs out. */
struct uvm *uvm_clone(const struct uvm *vm);
/* Map a zeroed page at va (page aligned). A page already there is kept,
 * its permissions widened. 0, -ENOMEM or -EINVAL. */
int uvm_map(struct uvm *vm, unsigned long va, int flags);
void uvm_unmap(struct uvm *vm, unsigned long va);
/* Copy into vm's memory through the direct map (any address space may be
 * loaded); every page must be mapped. 0 or -EFAULT. */
int uvm_write(struct uvm *vm, unsigned long va, const void *src, size_t n);
/* Move the break; returns the break in force afterwards. */
unsigned long uvm_brk(struct uvm *vm, unsigned long addr);
/* Pages of user memory (and their tables) alive, over all processes. */
long uvm_pages_alive(void);

#endif
