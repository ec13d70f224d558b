/*
 * modtest: the module system calls from user space, as root and not
 * (docs/modules.md). Checks that:
 *   - every broken module in /lib/modules/bad/ (tools/mkbadmod.py; the
 *     manifest says what each must give) is refused with its errno and a
 *     message that says why, and a failing init is reported as such;
 *   - bad arguments give EFAULT, EINVAL, EFBIG, ENOENT, EEXIST, ERANGE;
 *   - parameters reach the module; lsmod's list, ksym_lookup() names a
 *     module's function "[module]";
 *   - a module in use cannot be unloaded (EBUSY): while a reference is
 *     held (a ctl call asleep in another process) and while another
 *     module uses its exports (modlib, moduser);
 *   - a user other than root gets EPERM from init_module, delete_module
 *     and module_ctl, and may still list modules;
 *   - nothing leaked: kmalloc objects and bytes, module pages, module-area
 *     pages and the number of modules are back at their baseline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/wait.h>
#include <sys/module.h>
#include <quiescent.h>

#define CHECK_PROG "modtest"
#include <check.h>

static bool contains(const char *s, const char *w)
{
	size_t n = strlen(w);

	for (; *s; s++)
		if (!strncmp(s, w, n))
			return true;
	return false;
}

static int insmod(const char *name, const char *params, char *err)
{
	char path[QS_PATH_MAX];
	size_t size;
	void *img;
	int r;

	snprintf(path, sizeof(path), "/lib/modules/%s.ko", name);
	if (read_file(path, &img, &size)) {
		printf("modtest: cannot read %s\n", path);
		return -1;
	}
	err[0] = 0;
	r = init_module(img, size, params, err);
	free(img);
	return r;
}

static int errno_named(const char *s)
{
	static const struct { const char *name; int err; } names[] = {
		{ "ENOEXEC", ENOEXEC }, { "ENOENT", ENOENT }, { "EINVAL", EINVAL },
		{ "EEXIST", EEXIST }, { "ENAMETOOLONG", ENAMETOOLONG },
	};

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].err;
	return -1;
}

/* Each line of the manifest: "<kind> <errno name> <words>". */
static void check_bad_modules(void)
{
	char *manifest, *line, *next, err[QS_MODULE_ERRLEN];
	size_t size;
	int n = 0;

	CHECK(read_file("/lib/modules/bad/manifest", (void **)&manifest, &size) == 0, "manifest");
	if (failed)
		return;
	manifest[size - 1] = 0;
	for (line = manifest; line && *line; line = next) {
		char *kind = line, *ename = strchr(line, ' '), *words;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!ename || !(words = strchr(ename + 1, ' ')))
			break;
		*ename++ = 0;
		*words++ = 0;
		char name[64];
		snprintf(name, sizeof(name), "bad/%s", kind);
		errno = 0;
		int r = insmod(name, "", err);
		CHECK(r == -1 && errno == errno_named(ename) && contains(err, words),
		      "insmod %s: %d, want %s and '%s'; got '%s'", name, r, ename, words, err);
		printf("modtest: insmod %s: %s: %s\n", name, strerror(errno), err);
		n++;
	}
	CHECK(n >= 10, "%d bad modules", n);
	free(manifest);
}

static void check_arguments(void)
{
	char err[QS_MODULE_ERRLEN];
	static char big[QS_MODULE_PARAMS_MAX + 16];
	char buf[128];
	size_t size;
	void *img;

	FAILS(init_module(NULL, 100, "", NULL), EFAULT);
	FAILS(init_module((void *)0xffffffff80100000UL, 100, "", NULL), EFAULT);
	err[0] = 0;
	FAILS(init_module(buf, 0, "", err), EINVAL);
	CHECK(contains(err, "empty"), "an empty image says why: '%s'", err);
	err[0] = 0;
	FAILS(init_module(buf, QS_MODULE_IMAGE_MAX + 1, "", err), EFBIG);
	CHECK(contains(err, "larger than"), "an image too large says why: '%s'", err);
	CHECK(read_file("/lib/modules/hello.ko", &img, &size) == 0, "read hello.ko");
	FAILS(init_module(img, size, (char *)1, NULL), EFAULT);
	memset(big, 'a', sizeof(big) - 1);
	FAILS(init_module(img, size, big, NULL), ENAMETOOLONG);
	FAILS(init_module(img, size - 1, "", (char *)16), ENOEXEC);	/* a bad errbuf loses only the text */
	FAILS(init_module(img, size, "nosuch=1", err), EINVAL);
	CHECK(contains(err, "unknown parameter 'nosuch'"), "says which: %s", err);
	FAILS(init_module(img, size, "fail=19", err), 19);
	CHECK(contains(err, "init failed with -19"), "a failing init: %s", err);
	free(img);
	FAILS(delete_module("nosuch", 0), ENOENT);
	FAILS(delete_module(NULL, 0), EFAULT);
	FAILS(query_modules(NULL, -1), EINVAL);
	FAILS(module_ctl("nosuch", 1, 0, NULL, 0), ENOENT);
	FAILS(ksym_lookup(0x1000, buf, sizeof(buf)), ENOENT);
}

static void check_hello(void)
{
	struct qs_module_info m[64];
	char err[QS_MODULE_ERRLEN], sym[128];
	int n, i, st;
	pid_t pid;

	CHECK(insmod("hello", "count=2 who=modtest", err) == 0, "insmod hello: %s", err);
	FAILS(insmod("hello", "", err), EEXIST);
	CHECK(module_ctl("hello", HELLO_CTL_COUNT, 0, NULL, 0) == 2, "count=2 reached hello");
	n = query_modules(m, 64);
	for (i = 0; i < n && strcmp(m[i].name, "hello"); i++)
		;
	CHECK(i < n && m[i].state == QS_MODULE_LIVE && m[i].refs == 0 && m[i].nparams == 4,
	      "lsmod shows hello live, unreferenced, 4 parameters");
	if (i < n) {
		CHECK(ksym_lookup(m[i].base, sym, sizeof(sym)) > 0 && contains(sym, " [hello]"),
		      "its first address is %s", sym);
		FAILS(ksym_lookup(m[i].base, sym, 4), ERANGE);
		printf("modtest: hello's first function: %s\n", sym);
	}
	FAILS(delete_module("hello", 1), EINVAL);
	FAILS(query_modules((void *)16, 1), EFAULT);

	/* A reference held: a ctl call asleep in another process. */
	pid = fork();
	if (pid == 0)
		_exit(module_ctl("hello", HELLO_CTL_SLEEP, 600, NULL, 0) == 0 ? 0 : 1);
	usleep(200000);
	FAILS(delete_module("hello", 0), EBUSY);
	n = query_modules(m, 64);
	for (i = 0; i < n && strcmp(m[i].name, "hello"); i++)
		;
	CHECK(i < n && m[i].refs == 1, "lsmod shows the reference");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st), "the sleeper");
	CHECK(delete_module("hello", 0) == 0, "rmmod hello once free");
}

static void check_dependencies(void)
{
	struct qs_module_info m[64];
	char err[QS_MODULE_ERRLEN];
	int n, i;

	FAILS(insmod("moduser", "", err), ENOENT);
	CHECK(contains(err, "unresolved symbol modlib_add"), "says which: %s", err);
	CHECK(insmod("modlib", "", err) == 0, "insmod modlib: %s", err);
	CHECK(insmod("moduser", "", err) == 0, "insmod moduser: %s", err);
	n = query_modules(m, 64);
	for (i = 0; i < n && strcmp(m[i].name, "modlib"); i++)
		;
	CHECK(i < n && m[i].nusers == 1 && !strcmp(m[i].users, "moduser"),
	      "lsmod: modlib used by moduser");
	FAILS(delete_module("modlib", 0), EBUSY);
	CHECK(delete_module("moduser", 0) == 0, "rmmod moduser");
	CHECK(delete_module("modlib", 0) == 0, "rmmod modlib");
}

static void check_not_root(void)
{
	char err[QS_MODULE_ERRLEN];
	int st;
	pid_t pid;

	CHECK(insmod("hello", "", err) == 0, "insmod hello: %s", err);
	pid = fork();
	if (pid == 0) {
		struct qs_module_info m[8];
		struct qs_module_stats s;
		int bad = 0;

		if (setuid(1000))
			_exit(9);
		bad |= insmod("modlib", "", err) != -1 || errno != EPERM;
		bad |= (delete_module("hello", 0) != -1 || errno != EPERM) << 1;
		bad |= (module_ctl("hello", HELLO_CTL_COUNT, 0, NULL, 0) != -1 || errno != EPERM) << 2;
		bad |= (query_modules(m, 8) < 1) << 3;
		bad |= (module_stats(&s) != 0 || s.loaded < 1) << 4;
		_exit(bad);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "as uid 1000: EPERM for insmod, rmmod and modctl, lsmod allowed (status 0x%x)", st);
	CHECK(delete_module("hello", 0) == 0, "rmmod hello");
}

struct baseline {
	struct qs_stats s;
	struct qs_module_stats m;
};

static void baseline(struct baseline *b)
{
	qs_stats(&b->s, QS_STATS_SYNC);
	module_stats(&b->m);
}

static bool same(const char *what, unsigned long a, unsigned long b)
{
	printf("modtest: %-22s %10lu -> %10lu%s\n", what, a, b, a == b ? "" : "  CHANGED");
	return a == b;
}

int main(void)
{
	struct baseline before, after;
	char err[QS_MODULE_ERRLEN];
	bool ok = true;

	if (getuid() != 0) {
		printf("modtest: must run as root\n");
		return 1;
	}
	/* Warm up: the page tables of the module area are made once, kept. */
	insmod("hello", "", err);
	delete_module("hello", 0);
	baseline(&before);
	check_bad_modules();
	check_arguments();
	check_hello();
	check_dependencies();
	check_not_root();
	baseline(&after);
	ok &= same("kmalloc objects", before.s.kmalloc_objects, after.s.kmalloc_objects);
	ok &= same("kmalloc bytes", before.s.kmalloc_bytes, after.s.kmalloc_bytes);
	ok &= same("module pages", before.m.pages, after.m.pages);
	ok &= same("module area pages", before.m.va_pages, after.m.va_pages);
	ok &= same("modules loaded", before.m.loaded, after.m.loaded);
	printf("modtest: %lu loads, %lu unloads, %lu refused since the baseline\n",
	       (unsigned long)(after.m.loads - before.m.loads),
	       (unsigned long)(after.m.unloads - before.m.unloads),
	       (unsigned long)(after.m.refused - before.m.refused));
	CHECK(ok, "allocations back at the baseline");
	return check_summary();
}
