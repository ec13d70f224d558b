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
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <qs_fs.h>
#include <check.h>

/* Regular files with data: open's flags, read, write, lseek, fstat, and
 * an unlinked file that stays readable until its last close. */
static void check_files(void)
{
	static char big[10000], back[10000];
	char buf[64];
	struct stat st;
	int fd, fd2;

	fd = open("/t/data", O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0, "O_CREAT|O_EXCL makes /t/data");
	FAILS(open("/t/data", O_RDWR | O_CREAT | O_EXCL, 0644), EEXIST);
	CHECK(write(fd, "hello", 5) == 5, "write 5 bytes");
	CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 5, "fstat size 5");
	CHECK(stat("/t/data", &st) == 0 && st.st_size == 5, "stat size 5");
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && read(fd, buf, sizeof(buf)) == 5 &&
	      !memcmp(buf, "hello", 5), "read back what was written");
	CHECK(read(fd, buf, sizeof(buf)) == 0, "end of file reads 0");
	CHECK(lseek(fd, 8, SEEK_SET) == 8 && write(fd, "x", 1) == 1, "write past the end");
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && read(fd, buf, sizeof(buf)) == 9 &&
	      !memcmp(buf, "hello\0\0\0x", 9), "a hole reads as zeros");
	CHECK(lseek(fd, -1, SEEK_END) == 8, "SEEK_END");
	FAILS(lseek(fd, -100, SEEK_CUR), EINVAL);
	close(fd);

	fd = open("/t/data", O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, "AB", 2) == 2, "O_APPEND write");
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && write(fd, "C", 1) == 1, "O_APPEND after a seek");
	FAILS(read(fd, buf, 1), EBADF);
	close(fd);
	fd = open("/t/data", O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 12 && !memcmp(buf + 9, "ABC", 3),
	      "O_APPEND writes went to the end");
	FAILS(write(fd, "x", 1), EBADF);
	close(fd);
	fd = open("/t/data", O_RDWR | O_TRUNC);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0, "O_TRUNC empties it");
	for (int i = 0; i < (int)sizeof(big); i++)
		big[i] = (char)(i * 7 + 3);
	CHECK(write(fd, big, sizeof(big)) == sizeof(big), "a 10000-byte write");
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && read(fd, back, sizeof(back)) == sizeof(back) &&
	      !memcmp(big, back, sizeof(big)), "10000 bytes read back");
	FAILS(write(fd, (void *)8, 4), EFAULT);
	close(fd);

	FAILS(open("/t/none", O_RDONLY), ENOENT);
	FAILS(open("/t/none/x", O_RDWR | O_CREAT, 0644), ENOENT);
	FAILS(open("/t/data/x", O_RDWR | O_CREAT, 0644), ENOTDIR);
	FAILS(open("/t", O_WRONLY), EISDIR);
	FAILS(open("/t", O_RDWR | O_CREAT, 0644), EISDIR);
	FAILS(open("/t/data", O_RDONLY | O_DIRECTORY), ENOTDIR);
	fd = open("/t", O_RDONLY);
	CHECK(fd >= 0, "a directory opens read-only");
	FAILS(read(fd, buf, 1), EISDIR);
	close(fd);

	/* unlink of an open file: the data stays until the last close */
	fd = open("/t/data", O_RDWR);
	fd2 = open("/t/data", O_RDONLY);
	CHECK(unlink("/t/data") == 0, "unlink an open file");
	FAILS(stat("/t/data", &st), ENOENT);
	CHECK(fstat(fd, &st) == 0 && st.st_size == sizeof(big), "fstat after unlink");
	CHECK(read(fd2, back, sizeof(back)) == sizeof(back) && !memcmp(big, back, sizeof(big)),
	      "read after unlink");
	CHECK(lseek(fd, 0, SEEK_END) == sizeof(big) && write(fd, "z", 1) == 1,
	      "write after unlink");
	CHECK(read(fd2, buf, 1) == 1 && buf[0] == 'z', "the other descriptor sees it");
	close(fd);
	close(fd2);
	fd = open("/t/data", O_RDWR | O_CREAT, 0600);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0, "a new file under the old name");
	close(fd);

	/* a file's contents survive renames of it and around it */
	fd = open("/t/data", O_WRONLY);
	CHECK(fd >= 0 && write(fd, "keep", 4) == 4, "write keep");
	close(fd);
	CHECK(rename("/t/data", "/t/d/moved") == 0 && mkdir("/t/o", 0755) == 0 &&
	      rename("/t/o", "/t/o2") == 0 && rmdir("/t/o2") == 0, "renames");
	fd = open("/t/d/moved", O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 4 && !memcmp(buf, "keep", 4),
	      "contents after renames");
	close(fd);
	CHECK(unlink("/t/d/moved") == 0, "unlink /t/d/moved");

	/* initrd files copy on their first write; the archive is untouched */
	fd = open("/etc/motd", O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, 7) == 7 && !memcmp(buf, "Welcome", 7), "/etc/motd reads");
	close(fd);
}

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

	check_files();

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
