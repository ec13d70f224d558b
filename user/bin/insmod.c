/*
 * insmod FILE [name=value ...]: load a kernel module (root only).
 *
 * FILE is a path, or a bare name looked up as /lib/modules/NAME.ko. The
 * words after it are the module's parameters. On failure the kernel says
 * why (init_module()'s errbuf, docs/modules.md):
 *
 *	$ insmod /lib/modules/bad/overflow.ko
 *	insmod: /lib/modules/bad/overflow.ko: Exec format error: relocation 0 in
 *	.rela.text: R_X86_64_32 against ktime_get_ns overflows (...)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/module.h>
#include <quiescent.h>

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

int main(int argc, char **argv)
{
	char path[QS_PATH_MAX], params[QS_MODULE_PARAMS_MAX] = "", err[QS_MODULE_ERRLEN] = "";
	size_t size, used = 0;
	void *image;

	if (argc < 2) {
		fprintf(stderr, "usage: insmod FILE.ko|NAME [name=value ...]\n");
		return 2;
	}
	if (strchr(argv[1], '/'))
		snprintf(path, sizeof(path), "%s", argv[1]);
	else
		snprintf(path, sizeof(path), "/lib/modules/%s%s", argv[1],
			 ends_with(argv[1], ".ko") ? "" : ".ko");
	for (int i = 2; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (used + n + 2 > sizeof(params)) {
			fprintf(stderr, "insmod: parameters longer than %d bytes\n",
				QS_MODULE_PARAMS_MAX - 1);
			return 1;
		}
		if (used)
			params[used++] = ' ';
		memcpy(params + used, argv[i], n + 1);
		used += n;
	}
	if (read_file(path, &image, &size)) {
		perror(path);
		return 1;
	}
	if (init_module(image, size, params, err)) {
		fprintf(stderr, "insmod: %s: %s%s%s\n", path, strerror(errno), err[0] ? ": " : "", err);
		return 1;
	}
	free(image);
	return 0;
}
