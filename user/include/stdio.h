/* A printf subset: d i u x X o p s c %, flags - 0 + space, width, precision, h l ll z. */
#ifndef _USER_STDIO_H
#define _USER_STDIO_H

#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>

typedef struct FILE {
	int fd;
} FILE;

extern FILE *stdin, *stdout, *stderr;
#define EOF	(-1)

int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sprintf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int snprintf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int vfprintf(FILE *f, const char *fmt, va_list ap);
int vprintf(const char *fmt, va_list ap);
int puts(const char *s);
int fputs(const char *s, FILE *f);
int putchar(int c);
int fputc(int c, FILE *f);
char *fgets(char *buf, int n, FILE *f);
int fflush(FILE *f);
void perror(const char *s);
int rename(const char *from, const char *to);	/* user/lib/fs.c */

#endif
