/* Port I/O. */
#ifndef _ARCH_IO_H
#define _ARCH_IO_H

#include <types.h>
#include <compiler.h>

static inline void outb(u16 port, u8 v) { __asm__ __volatile__("outb %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outw(u16 port, u16 v) { __asm__ __volatile__("outw %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outl(u16 port, u32 v) { __asm__ __volatile__("outl %0, %1" :: "a"(v), "Nd"(port)); }
static inline u8 inb(u16 port) { u8 v; __asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline u16 inw(u16 port) { u16 v; __asm__ __volatile__("inw %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline u32 inl(u16 port) { u32 v; __asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline void io_wait(void) { outb(0x80, 0); }

/* Memory-mapped I/O: one access, never cached in a register. */
static inline u32 mmio_read32(const volatile void __iomem *a)
{
	return *(const volatile u32 __force *)a;
}
static inline void mmio_write32(volatile void __iomem *a, u32 v)
{
	*(volatile u32 __force *)a = v;
}

#endif
