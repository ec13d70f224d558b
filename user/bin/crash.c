/*
 * crash <how>: do something a program must not, and be killed for it
 * (the kernel prints "killed: ..."; the shell reports the signal):
 *   null      write through a NULL pointer          (page fault)
 *   kernel    read kernel memory                    (page fault, protection)
 *   text      write to our own code                 (page fault, read-only)
 *   nx        jump into the stack                   (page fault, no-execute)
 *   ud        an undefined instruction              (invalid opcode)
 *   div       divide by zero                        (divide error)
 *   int3      a breakpoint                          (breakpoint)
 *   hlt       a privileged instruction              (general protection)
 */
#include <stdio.h>
#include <string.h>

static volatile int zero;

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "null";

	printf("crash: about to %s\n", how);
	if (!strcmp(how, "null")) {
		*(volatile int *)0 = 1;
	} else if (!strcmp(how, "kernel")) {
		printf("%d\n", *(volatile int *)0xffffffff80100000UL);
	} else if (!strcmp(how, "text")) {
		*(volatile char *)main = 0;
	} else if (!strcmp(how, "nx")) {
		unsigned char code[16] = { 0xc3 };	/* ret */
		((void (*)(void))code)();
	} else if (!strcmp(how, "ud")) {
		__asm__ __volatile__("ud2");
	} else if (!strcmp(how, "div")) {
		int q;
		__asm__ __volatile__("cltd; idivl %1" : "=a"(q) : "r"(zero), "a"(1) : "rdx");
		printf("%d\n", q);
	} else if (!strcmp(how, "int3")) {
		__asm__ __volatile__("int3");
	} else if (!strcmp(how, "hlt")) {
		__asm__ __volatile__("hlt");
	} else {
		printf("crash: unknown way '%s'\n", how);
		return 2;
	}
	printf("crash: still alive after '%s'?!\n", how);
	return 1;
}
