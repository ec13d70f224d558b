/*
 * The kernel's vsnprintf against the table the user library is checked
 * against too (include/uapi/printf_cases.h, libctest): one list of what
 * C says the integer flags print, so the two engines agree on each case.
 */
#include <ktest.h>
#include <string.h>
#include <uapi/printf_cases.h>

static const struct {
	const char *want, *fmt;
	int arg;
} printf_cases[] = {
#define X(want, fmt, arg) { want, fmt, arg },
	PRINTF_INT_CASES(X)
#undef X
};

KTEST(printf_shared_cases)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(printf_cases); i++) {
		char b[64];

		/* fmt through the table, not a literal: see the header. */
		snprintf(b, sizeof(b), printf_cases[i].fmt, printf_cases[i].arg);
		KT_EXPECT(t, !strcmp(b, printf_cases[i].want), "\"%s\" gave '%s', expected '%s'",
			  printf_cases[i].fmt, b, printf_cases[i].want);
	}
}
