/*
 * The parts of ELF64 that a relocatable object (a .ko) uses, as the System
 * V gABI and its x86-64 supplement define them. Private to the loader.
 */
#ifndef _KERNEL_MODULE_ELF_H
#define _KERNEL_MODULE_ELF_H

#include <types.h>

struct elf64_ehdr {
	u8 ident[16];
	u16 type, machine;
	u32 version;
	u64 entry, phoff, shoff;
	u32 flags;
	u16 ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_shdr {
	u32 name, type;
	u64 flags, addr, offset, size;
	u32 link, info;
	u64 addralign, entsize;
};

struct elf64_sym {
	u32 name;
	u8 info, other;
	u16 shndx;
	u64 value, size;
};

struct elf64_rela {
	u64 offset;
	u64 info;
	s64 addend;
};

#define EI_CLASS	4
#define EI_DATA		5
#define EI_VERSION	6
#define ELFCLASS64	2
#define ELFDATA2LSB	1
#define EV_CURRENT	1
#define ET_REL		1
#define EM_X86_64	62

#define SHT_NULL	0
#define SHT_PROGBITS	1
#define SHT_SYMTAB	2
#define SHT_STRTAB	3
#define SHT_RELA	4
#define SHT_NOTE	7
#define SHT_NOBITS	8
#define SHT_REL		9
#define SHT_INIT_ARRAY	14
#define SHT_FINI_ARRAY	15

#define SHF_WRITE	0x1
#define SHF_ALLOC	0x2
#define SHF_EXECINSTR	0x4
#define SHF_TLS		0x400

#define SHN_UNDEF	0
#define SHN_LORESERVE	0xff00
#define SHN_ABS		0xfff1
#define SHN_COMMON	0xfff2

#define ELF64_ST_BIND(i)	((i) >> 4)
#define ELF64_ST_TYPE(i)	((i) & 0xf)
#define STB_LOCAL	0
#define STB_GLOBAL	1
#define STB_WEAK	2
#define STT_NOTYPE	0
#define STT_OBJECT	1
#define STT_FUNC	2
#define STT_SECTION	3
#define STT_FILE	4

#define ELF64_R_SYM(i)		((u32)((i) >> 32))
#define ELF64_R_TYPE(i)		((u32)(i))

/* x86-64 relocation types the loader applies (psABI Table 4.9). */
#define R_X86_64_NONE	0
#define R_X86_64_64	1	/* S + A,     64 bits */
#define R_X86_64_PC32	2	/* S + A - P, 32 bits signed */
#define R_X86_64_PLT32	4	/* L + A - P: no PLT here, so S + A - P */
#define R_X86_64_32	10	/* S + A,     32 bits zero-extended */
#define R_X86_64_32S	11	/* S + A,     32 bits sign-extended */

#endif
