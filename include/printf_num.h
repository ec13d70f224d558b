/*
 * printf's output buffer and its integers, one source for both engines:
 * the kernel's (kernel/lib/vsnprintf.c) and the user library's
 * (user/lib/stdio.c) include this file, so a flag means the same thing in
 * printk() and in a user program's printf(), "%+ d" and "%#x" of 0
 * included. include/uapi/printf_cases.h lists what C says they
 * print; the KTEST printf_shared_cases and libctest check both against it.
 *
 * The includer provides bool, size_t and strlen(), and defines
 * PRINTF_HEX_ZERO_PREFIX: 1 in the kernel, where "%#lx" of 0 prints "0x0"
 * as Linux's printk does (an address reads as one: "page fault at 0x0"),
 * 0 in user programs, where C says "0". That is the one difference.
 */
#ifndef _PRINTF_NUM_H
#define _PRINTF_NUM_H

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

/*
 * One number: prefix is the sign ("-", "+", " ") or the '#' form's "0x";
 * it goes before zero padding and counts in the width, as in C.
 */
static void put_num(struct out *o, unsigned long long v, int base, bool upper,
		    const char *prefix, int width, int prec, bool left, char pad)
{
	char tmp[32];
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0, len;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	while (n < prec && n < (int)sizeof(tmp))
		tmp[n++] = '0';
	len = n + strlen(prefix);
	if (!left && pad == ' ')
		for (; width > len; width--)
			put(o, ' ');
	while (*prefix)
		put(o, *prefix++);
	if (!left && pad == '0')
		for (; width > len; width--)
			put(o, '0');
	while (n)
		put(o, tmp[--n]);
	for (; left && width > len; width--)
		put(o, ' ');
}

/* The '#' form: 0x/0X before a hex number (a non-zero one in C), a leading 0 in octal. */
static const char *alt_prefix(char conv, unsigned long long v, int *prec)
{
	if (conv == 'o') {
		int digits = 0;

		for (unsigned long long t = v; t; t /= 8)
			digits++;
		if (*prec <= digits)
			*prec = digits + 1;
		return "";
	}
	if ((!v && !PRINTF_HEX_ZERO_PREFIX) || conv == 'u')
		return "";
	return conv == 'X' ? "0X" : "0x";
}

/* The sign flags: '+' wins over ' ' whichever comes first (C11 7.21.6.1). */
static char sign_flag(char sign, char flag)
{
	return flag == '+' || !sign ? flag : sign;
}

#endif
