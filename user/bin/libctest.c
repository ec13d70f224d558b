/*
 * libctest: the user libc's formatting and string functions against what
 * C says they print and return (C11 7.21.6.1 for printf's flags; 7.24.5.7
 * for strstr). Each check names the format and both strings on failure.
 *
 *   libctest       the checks; PASS or FAIL and what failed
 */
#define CHECK_PROG "libctest"
#include <check.h>
#include "../../include/uapi/printf_cases.h"	/* shared with the kernel's test */

static void expect_fmt(const char *got, const char *want, const char *fmt)
{
	CHECK(!strcmp(got, want), "\"%s\" gave '%s', expected '%s'", fmt, got, want);
}

#define FMT(want, fmt, ...) do {					\
	char b[64];							\
	snprintf(b, sizeof(b), fmt, __VA_ARGS__);			\
	expect_fmt(b, want, fmt);					\
} while (0)

static void expect_at(const char *hay, const char *needle, int want)
{
	const char *p = strstr(hay, needle);
	int got = p ? (int)(p - hay) : -1;

	CHECK(got == want, "strstr(\"%s\", \"%s\") at %d, expected %d", hay, needle, got, want);
}

/* The kernel's KTEST printf_shared_cases checks the same table. */
static void test_printf_shared(void)
{
	static const struct { const char *want, *fmt; int arg; } cases[] = {
#define X(want, fmt, arg) { want, fmt, arg },
		PRINTF_INT_CASES(X)
#undef X
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char b[64];

		snprintf(b, sizeof(b), cases[i].fmt, cases[i].arg);
		expect_fmt(b, cases[i].want, cases[i].fmt);
	}
}

static void test_printf(void)
{
	FMT("0x1f", "%#x", 0x1f);
	FMT("0X1F", "%#X", 0x1f);
	FMT("0", "%#x", 0);			/* no prefix for zero */
	FMT("017", "%#o", 15);
	FMT("0", "%#o", 0);
	FMT("    0x1f", "%#8x", 0x1f);
	FMT("0x00001f", "%#08x", 0x1f);		/* zeros after the prefix */
	FMT("0x1f    |", "%-#8x|", 0x1f);
	FMT("0xffffffffffffffff", "%#lx", ~0UL);
	FMT("0x0a", "%#.2x", 10);
	FMT("1f", "%x", 0x1f);
	FMT("abc", "%.3s", "abcdef");
	FMT("  ab", "%4s", "ab");
	FMT("0x1000", "%p", (void *)0x1000);
	FMT("100%", "%d%%", 100);
}

static void test_strstr(void)
{
	expect_at("hello quiescent", "quiescent", 6);
	expect_at("hello quiescent", "hello", 0);
	expect_at("hello quiescent", "", 0);
	expect_at("hello", "hello world", -1);
	expect_at("aaab", "aab", 1);
	expect_at("rcu: grace periods", "period", 11);
	expect_at("", "x", -1);
	expect_at("", "", 0);
}

int main(void)
{
	test_printf();
	test_printf_shared();
	test_strstr();
	return check_summary();
}
