/* Helpers the module and NMI tests share (kernel/module/module_test.c). */
#ifndef _MODULE_TEST_H
#define _MODULE_TEST_H

#include <ktest.h>
#include <types.h>

/* Seconds each stress test runs (module_stress.duration=, default 3). */
extern unsigned long module_stress_duration_s;

/* lib/modules/<name>.ko from the initrd. */
int test_module_image(const char *name, const void **data, size_t *size);
/* insmod of that image with params (NULL: none); err (QS_MODULE_ERRLEN) gets the reason. */
int test_module_load(const char *name, const char *params, char *err);

/* What a leak would change: kmalloc objects and bytes, module memory. */
struct test_module_baseline {
	long objects, bytes;
	unsigned long pages, va_pages, loaded;
};
void test_module_baseline(struct test_module_baseline *b);
bool test_module_same(struct ktest_ctx *t, const struct test_module_baseline *a,
		      const char *what);

#endif
