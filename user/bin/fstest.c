/*
 * fstest: the filesystem's namespace calls and their POSIX errors, from
 * user mode (kernel/fs; tests/scenarios/fs-user-smp2.toml). Prints
 * "fstest: PASS: N checks" or the failures.
 */
#define CHECK_PROG "fstest"
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <qs_fs.h>
#include <check.h>

int main(void)
{
	static char longname[300], longpath[4200];
	struct stat st;

	CHECK(stat("/bin/sh", &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0,
	      "/bin/sh from the initrd");
	CHECK(stat("/bin", &st) == 0 && S_ISDIR(st.st_mode), "/bin is a directory");
	CHECK(stat("/bin/../bin/./sh", &st) == 0, "dot and dot-dot");
	FAILS(stat("/nonexistent", &st), ENOENT);
	FAILS(stat("/bin/sh/x", &st), ENOTDIR);

	CHECK(mkdir("/t", 0755) == 0, "mkdir /t");
	FAILS(mkdir("/t", 0755), EEXIST);
	FAILS(mkdir("/none/x", 0755), ENOENT);
	CHECK(mkdir("/t/d", 0755) == 0, "mkdir /t/d");
	CHECK(qs_creat("/t/f", 0644, 1) == 0, "create /t/f");
	FAILS(qs_creat("/t/f", 0644, 1), EEXIST);
	FAILS(qs_creat("/t/d", 0644, 0), EISDIR);
	FAILS(mkdir("/t/f/x", 0755), ENOTDIR);
	FAILS(rmdir("/t"), ENOTEMPTY);
	FAILS(rmdir("/t/f"), ENOTDIR);
	FAILS(unlink("/t/d"), EISDIR);
	FAILS(rmdir("/t/d/."), EINVAL);

	/* rename: across directories, over a file, a directory under itself */
	CHECK(rename("/t/f", "/t/d/g") == 0, "rename into a directory");
	FAILS(stat("/t/f", &st), ENOENT);
	CHECK(stat("/t/d/g", &st) == 0 && S_ISREG(st.st_mode), "the file moved");
	CHECK(qs_creat("/t/h", 0644, 1) == 0, "create /t/h");
	CHECK(rename("/t/h", "/t/d/g") == 0, "rename over a file");
	FAILS(stat("/t/h", &st), ENOENT);
	FAILS(rename("/t/d", "/t/d/sub"), EINVAL);
	FAILS(rename("/t/d/g", "/t"), EISDIR);
	CHECK(mkdir("/t/e", 0755) == 0, "mkdir /t/e");
	FAILS(rename("/t/e", "/t/d/g"), ENOTDIR);
	FAILS(rename("/t/e", "/t/d"), ENOTEMPTY);
	FAILS(rename("/t/nothing", "/t/x"), ENOENT);
	CHECK(rename("/t/e", "/t/e2") == 0, "rename a directory");
	CHECK(rmdir("/t/e2") == 0, "rmdir an empty directory");

	/* bad input */
	memset(longname, 'n', 299);
	longname[0] = '/';
	FAILS(mkdir(longname, 0755), ENAMETOOLONG);
	memset(longpath, 'a', sizeof(longpath) - 1);
	for (int i = 0; i < (int)sizeof(longpath) - 1; i += 2)
		longpath[i] = '/';
	FAILS(stat(longpath, &st), ENAMETOOLONG);
	FAILS(mkdir((const char *)8, 0755), EFAULT);
	FAILS(rename("/t/d", (const char *)8), EFAULT);

	/* clean up */
	CHECK(unlink("/t/d/g") == 0, "unlink");
	FAILS(unlink("/t/d/g"), ENOENT);
	CHECK(rmdir("/t/d") == 0 && rmdir("/t") == 0, "rmdir");
	FAILS(stat("/t", &st), ENOENT);
	return check_summary();
}
