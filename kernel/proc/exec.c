/*
 * Loading a program: an ELF64 executable from the initrd into a fresh
 * address space, with its arguments on the stack, as the System V x86-64
 * ABI starts a process:
 *
 *   rsp ->  argc
 *           argv[0] ... argv[argc-1], NULL
 *           NULL                        (envp: empty)
 *           AT_NULL, 0                  (auxiliary vector: empty)
 *           ... the argument strings, near QS_USER_STACK_TOP
 *
 * Only statically linked, non-PIE executables (ET_EXEC) with PT_LOAD
 * segments in the user half are accepted. Each segment's pages get the
 * rights its flags ask for: writable only with PF_W, executable only
 * with PF_X (NX otherwise).
 */
#include "proc.h"
#include <fs.h>
#include <kmalloc.h>
#include <string.h>
#include <errno.h>
#include <mm.h>
#include <arch/gdt.h>
#include <arch/cpu.h>

#define MAX_ARGS	32
#define MAX_ARG_BYTES	4096

struct elf64_ehdr {
	u8 ident[16];
	u16 type, machine;
	u32 version;
	u64 entry, phoff, shoff;
	u32 flags;
	u16 ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr {
	u32 type, flags;
	u64 offset, vaddr, paddr, filesz, memsz, align;
};

#define ET_EXEC		2
#define EM_X86_64	62
#define PT_LOAD		1
#define PF_X		1
#define PF_W		2

static int zero_user(struct uvm *vm, unsigned long va, size_t n)
{
	static const char zeros[256];

	while (n) {
		size_t c = MIN(n, sizeof(zeros));
		if (uvm_write(vm, va, zeros, c))
			return -EFAULT;
		va += c;
		n -= c;
	}
	return 0;
}

static int load_segment(struct uvm *vm, const u8 *file, size_t size,
			const struct elf64_phdr *ph, unsigned long *end)
{
	unsigned long start = ph->vaddr, stop = ph->vaddr + ph->memsz;
	int flags = (ph->flags & PF_W ? UVM_WRITE : 0) | (ph->flags & PF_X ? UVM_EXEC : 0);
	int err;

	if (ph->filesz > ph->memsz || ph->offset > size || ph->filesz > size - ph->offset)
		return -ENOEXEC;
	if (start < QS_USER_BASE || stop < start ||
	    stop > QS_USER_STACK_TOP - (QS_USER_STACK_PAGES + 1) * PAGE_SIZE)
		return -ENOEXEC;
	for (unsigned long va = ALIGN_DOWN(start, PAGE_SIZE); va < stop; va += PAGE_SIZE)
		if ((err = uvm_map(vm, va, flags)))
			return err;
	if ((err = uvm_write(vm, start, file + ph->offset, ph->filesz)))
		return err;
	if ((err = zero_user(vm, start + ph->filesz, ph->memsz - ph->filesz)))
		return err;
	*end = MAX(*end, stop);
	return 0;
}

static int load_elf(struct uvm *vm, const u8 *file, size_t size, unsigned long *entry)
{
	const struct elf64_ehdr *eh = (const void *)file;
	unsigned long end = 0;
	int loaded = 0;

	if (size < sizeof(*eh) || memcmp(eh->ident, "\177ELF", 4) || eh->ident[4] != 2 ||
	    eh->ident[5] != 1 || eh->type != ET_EXEC || eh->machine != EM_X86_64 ||
	    eh->phentsize != sizeof(struct elf64_phdr) || eh->phoff > size ||
	    (size_t)eh->phnum * sizeof(struct elf64_phdr) > size - eh->phoff)
		return -ENOEXEC;
	for (int i = 0; i < eh->phnum; i++) {
		struct elf64_phdr ph;
		int err;

		memcpy(&ph, file + eh->phoff + i * sizeof(ph), sizeof(ph));
		if (ph.type != PT_LOAD || !ph.memsz)
			continue;
		if ((err = load_segment(vm, file, size, &ph, &end)))
			return err;
		loaded++;
	}
	if (!loaded || eh->entry < QS_USER_BASE || eh->entry >= end)
		return -ENOEXEC;
	vm->brk_base = vm->brk = ALIGN_UP(end, PAGE_SIZE);
	*entry = eh->entry;
	return 0;
}

/* The stack: pages, strings, then argc/argv/envp/auxv below them. */
static int setup_stack(struct uvm *vm, const char *const argv[], int argc, unsigned long *rsp)
{
	unsigned long sp = QS_USER_STACK_TOP, ptrs[MAX_ARGS];
	u64 words[MAX_ARGS + 5];
	int n = 0, err;

	for (int i = 1; i <= QS_USER_STACK_PAGES; i++)
		if ((err = uvm_map(vm, QS_USER_STACK_TOP - i * PAGE_SIZE, UVM_WRITE)))
			return err;
	for (int i = argc - 1; i >= 0; i--) {
		size_t len = strlen(argv[i]) + 1;

		sp -= len;
		if ((err = uvm_write(vm, sp, argv[i], len)))
			return err;
		ptrs[i] = sp;
	}
	words[n++] = argc;
	for (int i = 0; i < argc; i++)
		words[n++] = ptrs[i];
	words[n++] = 0;			/* end of argv */
	words[n++] = 0;			/* envp: empty */
	words[n++] = 0;			/* AT_NULL */
	words[n++] = 0;
	sp = ALIGN_DOWN(sp, 16) - n * sizeof(u64);
	sp = ALIGN_DOWN(sp, 16);	/* rsp % 16 == 0 at the entry point */
	if ((err = uvm_write(vm, sp, words, n * sizeof(u64))))
		return err;
	*rsp = sp;
	return 0;
}

int exec_load(const char *path, const char *const argv[], int argc,
	      struct uvm **vmp, struct pt_regs *regs)
{
	const void *file;
	struct dentry *d;
	size_t size;
	unsigned long entry, rsp;
	struct uvm *vm;
	int err;

	/* The program from the filesystem (the initrd unpacked at boot); a
	 * relative path from the caller's working directory. */
	if ((err = vfs_exec_get(path, &d, &file, &size)))
		return err;
	vm = uvm_create();
	if (!vm) {
		vfs_exec_put(d);
		return -ENOMEM;
	}
	err = load_elf(vm, file, size, &entry);
	vfs_exec_put(d);
	if (err || (err = setup_stack(vm, argv, argc, &rsp))) {
		uvm_destroy(vm);
		return err;
	}
	memset(regs, 0, sizeof(*regs));
	regs->rip = entry;
	regs->rsp = rsp;
	regs->rflags = X86_EFLAGS_IF | 0x2;	/* bit 1 is always set */
	regs->cs = USER_CS;
	regs->ss = USER_DS;
	*vmp = vm;
	return 0;
}

/* The arguments, copied in: into one buffer, with pointers into it. */
static int copy_args(const char __user *const __user *uargv, char *buf,
		     const char *argv[], int *argc)
{
	size_t used = 0;
	int n = 0;

	for (; uargv; n++) {
		const char __user *s;
		long len;

		if (copy_from_user(&s, &uargv[n], sizeof(s)))
			return -EFAULT;
		if (!s)
			break;
		if (n == MAX_ARGS)
			return -E2BIG;
		len = strncpy_from_user(buf + used, s, MAX_ARG_BYTES - used);
		if (len == -ENAMETOOLONG)
			return -E2BIG;
		if (len < 0)
			return len;
		argv[n] = buf + used;
		used += len + 1;
	}
	*argc = n;
	return 0;
}

long proc_execve(struct pt_regs *regs, const char __user *upath,
		 const char __user *const __user *uargv)
{
	struct process *p = current_proc();
	const char *argv[MAX_ARGS];
	char *path = kmalloc(256), *args = kmalloc(MAX_ARG_BYTES);
	struct uvm *vm, *old;
	struct pt_regs fresh;
	int argc = 0;
	long err = -ENOMEM;

	if (!path || !args)
		goto out;
	err = strncpy_from_user(path, upath, 256);
	if (err < 0)
		goto out;
	err = copy_args(uargv, args, argv, &argc);
	if (err)
		goto out;
	err = exec_load(path, argv, argc, &vm, &fresh);
	if (err)
		goto out;

	/* The point of no return: the old program is gone. */
	preempt_disable();
	old = p->vm;
	p->vm = vm;
	current->cr3 = vm->cr3;
	write_cr3(vm->cr3);
	preempt_enable();
	uvm_destroy(old);
	files_close_on_exec(&p->files);
	{
		const char *base = strrchr(path, '/');
		strlcpy(current->name, base ? base + 1 : path, sizeof(current->name));
		strlcpy(p->name, current->name, sizeof(p->name));
	}
	*regs = fresh;
	err = 0;
out:
	kfree(path);
	kfree(args);
	return err;
}
