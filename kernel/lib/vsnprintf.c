/*
 * vsnprintf: the subset of printf the kernel needs.
 *   %d %i %u %x %X %o %c %s %p %%, flags '-' '0' '+' ' ' '#', width and
 *   precision (also '*'), length modifiers hh h l ll z t j.
 *   %pS prints a kernel text address as symbol+0xoff (kernel/core/ksyms.c).
 */
#include <string.h>
#include <ksyms.h>

#define PRINTF_HEX_ZERO_PREFIX 1	/* "%#lx" of 0 is "0x0", as in Linux */
#include <printf_num.h>

static void put_str(struct out *o, const char *s, int width, int prec, bool left)
{
	int n = s ? (int)strnlen(s, prec < 0 ? ~0UL >> 1 : (size_t)prec) : 0;

	if (!s) {
		s = "(null)";
		n = 6;
	}
	if (!left)
		for (; width > n; width--)
			put(o, ' ');
	for (int i = 0; i < n; i++)
		put(o, s[i]);
	for (; width > n; width--)
		put(o, ' ');
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		bool left = false, alt = false;
		char pad = ' ', sign = 0;
		int width = 0, prec = -1, lng = 0;

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
		} else
			while (*fmt >= '0' && *fmt <= '9')
				width = width * 10 + (*fmt++ - '0');
		if (*fmt == '.') {
			prec = 0;
			fmt++;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			} else
				while (*fmt >= '0' && *fmt <= '9')
					prec = prec * 10 + (*fmt++ - '0');
		}
		for (;; fmt++) {
			if (*fmt == 'l')
				lng++;
			else if (*fmt == 'z' || *fmt == 't' || *fmt == 'j')
				lng = 2;
			else if (*fmt == 'h')
				;
			else
				break;
		}
		if (left)
			pad = ' ';

		unsigned long long u;
		long long s;
		switch (*fmt) {
		case 'd':
		case 'i':
			s = lng ? va_arg(ap, long long) : va_arg(ap, int);
			char sg[2] = { s < 0 ? '-' : sign, 0 };

			put_num(&o, s < 0 ? -(unsigned long long)s : (unsigned long long)s, 10, false,
				sg, width, prec, left, pad);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			u = lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned int);
			const char *pre = alt ? alt_prefix(*fmt, u, &prec) : "";	/* may raise prec */

			put_num(&o, u, *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16, *fmt == 'X',
				pre, width, prec, left, pad);
			break;
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case 's':
			put_str(&o, va_arg(ap, const char *), width, prec, left);
			break;
		case 'p':
			u = (unsigned long)va_arg(ap, void *);
			if (fmt[1] == 'S' || fmt[1] == 's') {
				char sym[128];
				fmt++;
				ksym_format((unsigned long)u, sym, sizeof(sym));
				put_str(&o, sym, width, -1, left);
			} else {
				put_num(&o, u, 16, false, "0x", 18, -1, false, '0');	/* 0x + 16 digits */
			}
			break;
		case '%':
			put(&o, '%');
			break;
		case 0:
			fmt--;
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = 0;
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
