/* The string and memory functions the kernel uses (kernel/lib/string.c). */
#ifndef _STRING_H
#define _STRING_H

#include <types.h>

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
#ifdef CONFIG_KASAN
/* memset()/memcpy() without KASAN's check of the range, for the code that
 * owns the shadow (the allocators writing into memory they poisoned). */
void *__memset(void *d, int c, size_t n);
void *__memcpy(void *d, const void *s, size_t n);
#endif
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
size_t strlcpy(char *d, const char *s, size_t n);
ssize_t strscpy(char *d, const char *s, size_t n);	/* -E2BIG: cut */
char *strstr(const char *h, const char *n);
bool glob_match(const char *pat, const char *s);
int kstrtoul(const char *s, unsigned int base, unsigned long *res);
int kstrtol(const char *s, unsigned int base, long *res);

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
