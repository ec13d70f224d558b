/*
 * vsnprintf: the subset of printf the kernel needs.
 *   %d %i %u %x %X %o %c %s %p %%, flags '-' '0' '+' ' ' '#', width and
 *   precision (also '*'), length modifiers hh h l ll z t j.
 *   %pS prints a kernel text address as symbol+0xoff (kernel/core/ksyms.c).
 */
#include <string.h>
#include <ksyms.h>

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

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

static void put_num(struct out *o, unsigned long long v, bool neg, unsigned base,
		    bool upper, int width, int prec, bool left, char pad, char sign)
{
	char tmp[24];
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	while (n < prec && n < (int)sizeof(tmp))
		tmp[n++] = '0';
	char s = neg ? '-' : sign;
	int total = n + (s ? 1 : 0);

	if (!left && pad == ' ')
		for (; width > total; width--)
			put(o, ' ');
	if (s)
		put(o, s);
	if (!left && pad == '0')
		for (; width > total; width--)
			put(o, '0');
	while (n)
		put(o, tmp[--n]);
	for (; width > total; width--)
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
			else if (*fmt == '+')
				sign = '+';
			else if (*fmt == ' ')
				sign = sign ? sign : ' ';
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
			put_num(&o, s < 0 ? -(unsigned long long)s : (unsigned long long)s, s < 0,
				10, false, width, prec, left, pad, sign);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			u = lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned int);
			if (alt && (*fmt == 'x' || *fmt == 'X')) {
				put(&o, '0');
				put(&o, 'x');
				width = width > 2 ? width - 2 : 0;
			}
			put_num(&o, u, false, *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16,
				*fmt == 'X', width, prec, left, pad, 0);
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
				put(&o, '0');
				put(&o, 'x');
				put_num(&o, u, false, 16, false, 16, -1, false, '0', 0);
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
