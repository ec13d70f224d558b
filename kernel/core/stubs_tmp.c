/* TEMPORARY: weak stand-ins until kernel/mm lands. Removed then. */
#include <mm.h>
#include <kmalloc.h>
__attribute__((weak)) void pmm_init(void) {}
__attribute__((weak)) void paging_init(void) {}
__attribute__((weak)) void kmalloc_init(void) {}
__attribute__((weak)) void paging_load_kernel_cr3(void) {}
__attribute__((weak)) void *ioremap(phys_addr_t pa, size_t size) { return phys_to_virt(pa); }
__attribute__((weak)) void *page_alloc_zeroed(void) { return 0; }
