/*
 * User address spaces: the lower half of a private PML4 (include/uvm.h).
 *
 * The kernel half is shared by copying the kernel PML4's upper 256 entries
 * into every new PML4: the tables below them are the kernel's own, so a
 * mapping the kernel adds later under an existing entry is seen by every
 * process at once. (Every upper entry exists before the first process:
 * the direct map, ioremap's area and the image are made by paging_init.)
 *
 * Every user-half table entry carries PTE_US, the leaves also PTE_RW for
 * writable pages and PTE_NX for data. Kernel accesses to user memory go
 * through kernel/proc/uaccess.c (the CPU's SMAP refuses any other);
 * loading a program writes its pages through the direct map instead
 * (uvm_write), which works whatever CR3 holds.
 */
#include <uvm.h>
#include <mm.h>
#include <string.h>
#include <errno.h>
#include <atomic.h>
#include <kmalloc.h>
#include <arch/cpu.h>

#define USER_PML4_ENTRIES	256

static atomic_t user_pages = ATOMIC_INIT(0);

long uvm_pages_alive(void)
{
	return atomic_read(&user_pages);
}

static void *upage_alloc(struct uvm *vm)
{
	void *p = page_alloc_zeroed();

	if (p) {
		vm->pages++;
		atomic_inc(&user_pages);
	}
	return p;
}

static void upage_free(struct uvm *vm, void *p)
{
	page_free(p);
	vm->pages--;
	atomic_dec(&user_pages);
}

static unsigned int idx(unsigned long va, int level)
{
	return (va >> (PAGE_SHIFT + 9 * (level - 1))) & 511;
}

/* The PTE for va; creates the tables on the way if create. NULL if absent. */
static u64 *walk(struct uvm *vm, unsigned long va, bool create)
{
	u64 *table = vm->pml4;

	for (int l = 4; l > 1; l--) {
		u64 *e = &table[idx(va, l)];

		if (!(*e & PTE_P)) {
			u64 *t;

			if (!create || !(t = upage_alloc(vm)))
				return NULL;
			*e = virt_to_phys(t) | PTE_P | PTE_RW | PTE_US;
		}
		table = phys_to_virt(*e & PTE_ADDR);
	}
	return &table[idx(va, 1)];
}

struct uvm *uvm_create(void)
{
	struct uvm *vm = kzalloc(sizeof(*vm));
	u64 *kpml4 = phys_to_virt(kernel_cr3());

	if (!vm)
		return NULL;
	vm->pml4 = upage_alloc(vm);
	if (!vm->pml4) {
		kfree(vm);
		return NULL;
	}
	memcpy(vm->pml4 + USER_PML4_ENTRIES, kpml4 + USER_PML4_ENTRIES,
	       USER_PML4_ENTRIES * sizeof(u64));
	vm->cr3 = virt_to_phys(vm->pml4);
	return vm;
}

static u64 leaf_flags(int flags)
{
	return PTE_P | PTE_US | (flags & UVM_WRITE ? PTE_RW : 0);
}

static bool cpu_has_nx(void)
{
	/* The kernel's own rodata is NX whenever the CPU has NX (paging.c). */
	return paging_lookup(_rodata_start, NULL) & PTE_NX;
}

int uvm_map(struct uvm *vm, unsigned long va, int flags)
{
	u64 *pte;
	u64 f;

	if ((va & ~PAGE_MASK) || va >= USER_TOP)
		return -EINVAL;
	pte = walk(vm, va, true);
	if (!pte)
		return -ENOMEM;
	f = leaf_flags(flags);
	if (*pte & PTE_P) {
		/* Shared page between two segments: the union of their rights. */
		u64 nx = (*pte & PTE_NX) && !(flags & UVM_EXEC) ? PTE_NX : 0;
		*pte = (*pte & ~PTE_NX) | (f & PTE_RW) | nx;
		return 0;
	}
	void *page = upage_alloc(vm);
	if (!page)
		return -ENOMEM;
	if (!(flags & UVM_EXEC) && cpu_has_nx())
		f |= PTE_NX;
	*pte = virt_to_phys(page) | f;
	return 0;
}

void uvm_unmap(struct uvm *vm, unsigned long va)
{
	u64 *pte = walk(vm, va, false);

	if (!pte || !(*pte & PTE_P))
		return;
	upage_free(vm, phys_to_virt(*pte & PTE_ADDR));
	*pte = 0;
	/* Only the owner's CPU can hold it in its TLB: the caller runs there. */
	invlpg((void *)va);
}

int uvm_write(struct uvm *vm, unsigned long va, const void *src, size_t n)
{
	const char *s = src;

	while (n) {
		u64 *pte = walk(vm, va & PAGE_MASK, false);
		size_t off = va & ~PAGE_MASK, chunk = MIN(n, PAGE_SIZE - off);

		if (!pte || !(*pte & PTE_P))
			return -EFAULT;
		memcpy((char *)phys_to_virt(*pte & PTE_ADDR) + off, s, chunk);
		s += chunk;
		va += chunk;
		n -= chunk;
	}
	return 0;
}

/* Free the tables and pages under `table` (a level-`level` table). */
static void free_level(struct uvm *vm, u64 *table, int level, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		if (!(table[i] & PTE_P))
			continue;
		void *next = phys_to_virt(table[i] & PTE_ADDR);
		if (level > 1)
			free_level(vm, next, level - 1, 512);
		else
			upage_free(vm, next);
	}
	if (level < 4)
		upage_free(vm, table);
}

void uvm_destroy(struct uvm *vm)
{
	if (!vm)
		return;
	free_level(vm, vm->pml4, 4, USER_PML4_ENTRIES);
	upage_free(vm, vm->pml4);
	kfree(vm);
}

static int clone_level(struct uvm *dst, const u64 *src, u64 *to, int level, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		void *copy;

		if (!(src[i] & PTE_P))
			continue;
		copy = upage_alloc(dst);
		if (!copy)
			return -ENOMEM;
		to[i] = virt_to_phys(copy) | (src[i] & ~PTE_ADDR);
		if (level > 1) {
			int err = clone_level(dst, phys_to_virt(src[i] & PTE_ADDR), copy, level - 1, 512);
			if (err)
				return err;
		} else {
			memcpy(copy, phys_to_virt(src[i] & PTE_ADDR), PAGE_SIZE);
		}
	}
	return 0;
}

struct uvm *uvm_clone(const struct uvm *vm)
{
	struct uvm *c = uvm_create();

	if (!c)
		return NULL;
	c->brk_base = vm->brk_base;
	c->brk = vm->brk;
	if (clone_level(c, vm->pml4, c->pml4, 4, USER_PML4_ENTRIES)) {
		uvm_destroy(c);		/* frees the partial copy */
		return NULL;
	}
	return c;
}

unsigned long uvm_brk(struct uvm *vm, unsigned long addr)
{
	unsigned long old = ALIGN_UP(vm->brk, PAGE_SIZE), want;

	if (addr < vm->brk_base || addr > vm->brk_base + QS_USER_HEAP_MAX)
		return vm->brk;
	want = ALIGN_UP(addr, PAGE_SIZE);
	for (unsigned long va = old; va < want; va += PAGE_SIZE) {
		if (uvm_map(vm, va, UVM_WRITE)) {
			for (unsigned long u = old; u < va; u += PAGE_SIZE)
				uvm_unmap(vm, u);
			return vm->brk;
		}
	}
	for (unsigned long va = want; va < old; va += PAGE_SIZE)
		uvm_unmap(vm, va);
	vm->brk = addr;
	return addr;
}
