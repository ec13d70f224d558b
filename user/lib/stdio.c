/*
 * printf and friends. No buffering: each call formats into a buffer and
 * writes it with one write(), so output from several processes mixes by
 * whole calls, and nothing is lost at _exit() or duplicated by fork().
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

static FILE files[3] = { { 0 }, { 1 }, { 2 } };
FILE *stdin = &files[0], *stdout = &files[1], *stderr = &files[2];

#define PRINTF_HEX_ZERO_PREFIX 0	/* "%#x" of 0 is "0", as C says */
#include "../../include/printf_num.h"	/* the integers, as the kernel prints them */

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		bool left = false, upper = false, alt = false;
		char pad = ' ', sign = 0;
		int width = 0, prec = -1, lng = 0;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		for (fmt++;; fmt++) {
			if (*fmt == '-')
				left = true;
			else if (*fmt == '0')
				pad = '0';
			else if (*fmt == '+' || *fmt == ' ')
				sign = sign_flag(sign, *fmt);
			else if (*fmt == '#')
				alt = true;
			else
				break;
		}
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				width = width * 10 + *fmt++ - '0';
		}
		if (*fmt == '.') {
			prec = 0;
			if (*++fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					prec = prec * 10 + *fmt++ - '0';
			}
		}
		for (;; fmt++) {
			if (*fmt == 'l')
				lng++;
			else if (*fmt == 'z' || *fmt == 't' || *fmt == 'j')
				lng = 2;
			else if (*fmt != 'h')
				break;
		}
		switch (*fmt) {
		case 'd':
		case 'i': {
			long long v = lng ? va_arg(ap, long long) : va_arg(ap, int);
			char sg[2] = { v < 0 ? '-' : sign, 0 };

			put_num(&o, v < 0 ? -(unsigned long long)v : (unsigned long long)v, 10, false,
				sg, width, prec, left, pad);
			break;
		}
		case 'X':
			upper = true;
			/* fall through */
		case 'x':
		case 'u':
		case 'o': {
			unsigned long long v = lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned int);
			const char *pre = alt ? alt_prefix(*fmt, v, &prec) : "";

			put_num(&o, v, *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16, upper, pre,
				width, prec, left, pad);
			break;
		}
		case 'p':
			put_num(&o, (unsigned long)va_arg(ap, void *), 16, false, "0x", width, -1,
				left, ' ');
			break;
		case 'c':
			put(&o, va_arg(ap, int));
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			int len;

			if (!s)
				s = "(null)";
			for (len = 0; s[len] && (prec < 0 || len < prec); len++)
				;
			for (; !left && width > len; width--)
				put(&o, ' ');
			for (int i = 0; i < len; i++)
				put(&o, s[i]);
			for (; left && width > len; width--)
				put(&o, ' ');
			break;
		}
		case '%':
			put(&o, '%');
			break;
		default:
			put(&o, '%');
			if (*fmt)
				put(&o, *fmt);
			else
				fmt--;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = 0;
	return o.len;
}

int snprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return r;
}

int sprintf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(buf, (size_t)-1 >> 1, fmt, ap);
	va_end(ap);
	return r;
}

static int write_all(int fd, const char *s, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(fd, s + done, n - done);
		if (w <= 0)
			return -1;
		done += w;
	}
	return n;
}

int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	char buf[1024];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	return write_all(f->fd, buf, n);
}

int vprintf(const char *fmt, va_list ap)
{
	return vfprintf(stdout, fmt, ap);
}

int printf(const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return r;
}

int fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfprintf(f, fmt, ap);
	va_end(ap);
	return r;
}

int fputs(const char *s, FILE *f)
{
	return write_all(f->fd, s, strlen(s));
}

int puts(const char *s)
{
	if (fputs(s, stdout) < 0)
		return EOF;
	return write_all(1, "\n", 1);
}

int fputc(int c, FILE *f)
{
	char ch = c;

	return write_all(f->fd, &ch, 1) < 0 ? EOF : (unsigned char)c;
}

int putchar(int c)
{
	return fputc(c, stdout);
}

/* The console gives a line per read(). */
char *fgets(char *buf, int n, FILE *f)
{
	ssize_t r;

	if (n <= 1)
		return NULL;
	r = read(f->fd, buf, n - 1);
	if (r <= 0)
		return NULL;
	buf[r] = 0;
	return buf;
}

int fflush(FILE *f)
{
	return 0;
}

void perror(const char *s)
{
	if (s && *s)
		fprintf(stderr, "%s: %s\n", s, strerror(errno));
	else
		fprintf(stderr, "%s\n", strerror(errno));
}
