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
#include <sys/wait.h>
#include <quiescent.h>
#include <qs_fs.h>
#include <check.h>

/* Is name among the entries getdents gives for path? */
static int listed(const char *path, const char *name)
{
	struct qs_dirent d[3];
	int fd = open(path, O_RDONLY | O_DIRECTORY), n, found = 0;

	if (fd < 0)
		return -1;
	while ((n = qs_getdents(fd, d, 3)) > 0)
		for (int i = 0; i < n; i++)
			found += !strcmp(d[i].name, name);
	close(fd);
	return n < 0 ? -1 : found;
}

/* chdir/getcwd, relative paths, getdents, and the mode bits for a uid. */
static void check_dirs(void)
{
	char buf[256];
	struct stat st;
	int fd, n;

	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, "/"), "the cwd starts at /");
	CHECK(chdir("/t") == 0 && getcwd(buf, sizeof(buf)) && !strcmp(buf, "/t"), "chdir /t");
	CHECK(mkdir("sub", 0755) == 0 && stat("/t/sub", &st) == 0, "mkdir of a relative path");
	CHECK(chdir("sub/../sub/.") == 0 && getcwd(buf, sizeof(buf)) && !strcmp(buf, "/t/sub"),
	      "chdir through . and ..");
	fd = open("../rel", O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && stat("/t/rel", &st) == 0, "open .. relative");
	close(fd);
	CHECK(chdir("..") == 0 && unlink("rel") == 0 && rename("sub", "sub2") == 0,
	      "unlink and rename relative");
	errno = 0;
	CHECK(!getcwd(buf, 2) && errno == ERANGE, "getcwd into 2 bytes: ERANGE");
	FAILS(chdir("/t/none"), ENOENT);
	FAILS(chdir("/bin/sh"), ENOTDIR);
	CHECK(chdir("sub2") == 0 && rename("/t/sub2", "/t/sub3") == 0 &&
	      getcwd(buf, sizeof(buf)) && !strcmp(buf, "/t/sub3"), "the cwd follows a rename");
	CHECK(chdir("/") == 0 && rmdir("/t/sub3") == 0, "rmdir of a former cwd");

	/* the child inherits the cwd; its chdir is its own */
	CHECK(chdir("/t") == 0, "chdir /t again");
	pid_t pid = fork();
	if (pid == 0)
		_exit(getcwd(buf, sizeof(buf)) && !strcmp(buf, "/t") && chdir("/") == 0 ? 0 : 1);
	CHECK(pid > 0 && waitpid(pid, &n, 0) == pid && WIFEXITED(n) && WEXITSTATUS(n) == 0,
	      "fork shares the cwd");
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, "/t"), "the child's chdir stays its own");
	chdir("/");

	/* exec resolves a relative path from the cwd, as open does */
	static const char *const dirs[] = { "/bin", "/", "/tmp" };
	static const char *const progs[] = { "true", "bin/true", "true" };
	for (int i = 0; i < 3; i++) {
		char *av[] = { (char *)progs[i], NULL };

		pid = fork();
		if (pid == 0) {
			chdir(dirs[i]);
			execv(progs[i], av);
			_exit(errno == ENOENT ? 3 : 4);
		}
		CHECK(pid > 0 && waitpid(pid, &n, 0) == pid && WIFEXITED(n) &&
		      WEXITSTATUS(n) == (i < 2 ? 0 : 3), "exec %s in %s: status %#x", progs[i],
		      dirs[i], n);
	}

	/* getdents */
	CHECK(listed("/bin", "sh") == 1 && listed("/etc", "motd") == 1, "getdents lists /bin, /etc");
	CHECK(listed("/t", "d") == 1 && listed("/t", "nothing") == 0, "getdents over /t");
	fd = open("/bin/sh", O_RDONLY);
	FAILS(qs_getdents(fd, (struct qs_dirent *)buf, 0), ENOTDIR);
	close(fd);
	FAILS(qs_getdents(99, (struct qs_dirent *)buf, 1), EBADF);
	/* entries added while reading: every name that stayed is seen */
	for (int i = 0; i < 10; i++) {
		snprintf(buf, sizeof(buf), "/t/g%d", i);
		mkdir(buf, 0755);
	}
	{
		struct qs_dirent d[2];
		int seen = 0, made = 0;

		fd = open("/t", O_RDONLY);
		while ((n = qs_getdents(fd, d, 2)) > 0) {
			for (int i = 0; i < n; i++)
				seen += d[i].name[0] == 'g';
			if (made++ < 3) {
				snprintf(buf, sizeof(buf), "/t/new%d", made);
				mkdir(buf, 0755);
			}
		}
		close(fd);
		CHECK(seen >= 10, "getdents saw %d of the 10 names that stayed", seen);
		for (int i = 0; i < 10; i++) {
			snprintf(buf, sizeof(buf), "/t/g%d", i);
			rmdir(buf);
		}
		for (int i = 1; i <= 3; i++) {
			snprintf(buf, sizeof(buf), "/t/new%d", i);
			rmdir(buf);
		}
	}
	/* names removed, added and renamed between the calls: each of the
	 * twelve that stay throughout is returned exactly once */
	{
		struct qs_dirent d[3];
		int count[12] = { 0 }, step = 0, once = 0;

		mkdir("/t/gd", 0755);
		for (int i = 0; i < 12; i++) {
			snprintf(buf, sizeof(buf), "/t/gd/x%d", i);
			qs_creat(buf, 0644, 1);
			snprintf(buf, sizeof(buf), "/t/gd/k%d", i);
			qs_creat(buf, 0644, 1);
		}
		fd = open("/t/gd", O_RDONLY | O_DIRECTORY);
		while ((n = qs_getdents(fd, d, 3)) > 0 && step < 40) {
			char to[32];

			for (int i = 0; i < n; i++)
				if (d[i].name[0] == 'k')
					count[atoi(d[i].name + 1) % 12]++;
			snprintf(buf, sizeof(buf), "/t/gd/x%d", step % 12);
			unlink(buf);
			snprintf(buf, sizeof(buf), "/t/gd/n%d", step);
			qs_creat(buf, 0644, 1);
			snprintf(to, sizeof(to), "/t/gd/m%d", step);
			rename(buf, to);
			step++;
		}
		close(fd);
		for (int i = 0; i < 12; i++)
			once += count[i] == 1;
		CHECK(once == 12, "getdents while the directory changed: %d of the 12 names that "
		      "stayed were returned exactly once", once);
		for (int i = 0; i < 40; i++) {
			snprintf(buf, sizeof(buf), "/t/gd/m%d", i);
			unlink(buf);
			snprintf(buf, sizeof(buf), "/t/gd/k%d", i);
			unlink(buf);
			snprintf(buf, sizeof(buf), "/t/gd/x%d", i);
			unlink(buf);
		}
		CHECK(rmdir("/t/gd") == 0, "rmdir /t/gd after the listing");
	}

	/* EACCES by mode bits and uid: a child as uid 1000 (root bypasses) */
	CHECK(mkdir("/t/priv", 0700) == 0 && mkdir("/t/pub", 0777) == 0, "dirs with modes");
	fd = open("/t/ro", O_WRONLY | O_CREAT, 0444);
	CHECK(fd >= 0 && write(fd, "r", 1) == 1, "the creator writes its 0444 file once open");
	close(fd);
	fd = open("/t/ro", O_RDWR);
	CHECK(fd >= 0, "root opens a 0444 file for writing");
	close(fd);
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		if (setuid(1000) < 0)
			_exit(99);
#define CHILD_FAILS(call, e) do { errno = 0; if ((call) != -1 || errno != (e)) bad++; } while (0)
		CHILD_FAILS(open("/t/ro", O_WRONLY), EACCES);
		CHILD_FAILS(open("/t/ro", O_RDONLY | O_TRUNC), EACCES);
		CHILD_FAILS(stat("/t/priv/x", &st), EACCES);
		CHILD_FAILS(chdir("/t/priv"), EACCES);
		CHILD_FAILS(mkdir("/t/x", 0755), EACCES);
		CHILD_FAILS(unlink("/t/ro"), EACCES);
		CHILD_FAILS(open("/t/priv", O_RDONLY), EACCES);
		fd = open("/t/ro", O_RDONLY);
		bad += fd < 0;
		close(fd);
		fd = open("/t/pub/mine", O_WRONLY | O_CREAT | O_EXCL, 0600);
		bad += fd < 0 || fstat(fd, &st) < 0 || st.st_uid != 1000;
		close(fd);
		bad += unlink("/t/pub/mine") != 0;
		CHILD_FAILS(qs_dcache(QS_DCACHE_SHRINK, 0, NULL), EPERM);
		_exit(bad);
	}
	CHECK(pid > 0 && waitpid(pid, &n, 0) == pid && WIFEXITED(n) && WEXITSTATUS(n) == 0,
	      "uid 1000: EACCES by mode bits, allowed where they allow (%d wrong)", WEXITSTATUS(n));
	CHECK(unlink("/t/ro") == 0 && rmdir("/t/priv") == 0 && rmdir("/t/pub") == 0,
	      "root removes them");
}

/*
 * Paths POSIX rejects, with Linux's answers: a trailing slash asks for a
 * directory, a name under a file is ENOTDIR, a removed directory has no
 * names to create (ENOENT), O_CREAT of a directory is EISDIR, "/" cannot
 * be removed (EBUSY); and F_SETFL turns O_APPEND on and off.
 */
static void check_posix_paths(void)
{
	char buf[64] = "";
	struct stat st;
	int fd;

	CHECK(qs_creat("/t/pf", 0644, 1) == 0 && mkdir("/t/pd", 0755) == 0,
	      "make /t/pf and /t/pd");
	/* a trailing slash on a file: ENOTDIR */
	FAILS(open("/t/pf/", O_RDONLY), ENOTDIR);
	FAILS(stat("/t/pf/", &st), ENOTDIR);
	FAILS(stat("/t/pf//", &st), ENOTDIR);
	FAILS(open("/t/pf/", O_RDWR | O_CREAT, 0644), EISDIR);
	FAILS(open("/t/pnew/", O_RDWR | O_CREAT, 0644), EISDIR);
	FAILS(stat("/t/pnew", &st), ENOENT);
	unlink("/t/pnew");		/* should one have been made, for the checks after */
	FAILS(rename("/t/pf", "/t/pg/"), ENOTDIR);
	FAILS(stat("/t/pg", &st), ENOENT);
	rename("/t/pg", "/t/pf");	/* back, should it have moved */
	FAILS(rename("/t/pf/", "/t/pg"), ENOTDIR);
	rename("/t/pg", "/t/pf");
	FAILS(unlink("/t/pf/"), ENOTDIR);
	CHECK(stat("/t/pf", &st) == 0 && S_ISREG(st.st_mode), "/t/pf still there");
	qs_creat("/t/pf", 0644, 0);	/* again, should the unlink have taken it */
	FAILS(unlink("/t/pnone/"), ENOENT);
	FAILS(unlink("/t/pd/"), EISDIR);
	FAILS(rmdir("/t/pf/"), ENOTDIR);
	/* ... and on a directory it is fine */
	CHECK(stat("/t/pd/", &st) == 0 && S_ISDIR(st.st_mode), "stat of a directory with /");
	fd = open("/t/pd/", O_RDONLY);
	CHECK(fd >= 0, "open of a directory with /");
	close(fd);
	CHECK(rename("/t/pd/", "/t/pe/") == 0 && mkdir("/t/pm/", 0755) == 0 &&
	      rmdir("/t/pm/") == 0 && rename("/t/pe", "/t/pd") == 0,
	      "rename, mkdir and rmdir of directories with /");
	/* a name under a file: ENOTDIR, whatever the call */
	FAILS(unlink("/t/pf/x"), ENOTDIR);
	FAILS(rmdir("/t/pf/x"), ENOTDIR);
	FAILS(rename("/t/pf/x", "/t/py"), ENOTDIR);
	FAILS(rename("/t/pd", "/t/pf/x"), ENOTDIR);
	FAILS(qs_creat("/t/pf/x", 0644, 0), ENOTDIR);
	/* O_CREAT of an existing directory: EISDIR (POSIX), read-only too */
	FAILS(open("/t/pd", O_RDONLY | O_CREAT, 0644), EISDIR);
	FAILS(open("/", O_RDONLY | O_CREAT, 0644), EISDIR);
	/* "/" is busy; "." is EINVAL */
	FAILS(rmdir("/"), EBUSY);
	FAILS(rmdir("//"), EBUSY);
	FAILS(rmdir("/."), EINVAL);
	/* a removed working directory: nothing can be created there, ENOENT */
	CHECK(mkdir("/t/pgone", 0755) == 0 && chdir("/t/pgone") == 0 && rmdir("/t/pgone") == 0,
	      "remove the working directory");
	FAILS(open("x", O_RDWR | O_CREAT, 0644), ENOENT);
	FAILS(qs_creat("x", 0644, 1), ENOENT);
	FAILS(mkdir("x", 0755), ENOENT);
	FAILS(rename("/t/pf", "x"), ENOENT);
	CHECK(chdir("/") == 0, "chdir / from the removed directory");
	/* fcntl(F_SETFL) sets and clears O_APPEND */
	fd = open("/t/pa", O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0 && write(fd, "ab", 2) == 2, "write ab");
	CHECK(fcntl(fd, F_SETFL, O_APPEND) == 0 && (fcntl(fd, F_GETFL) & O_APPEND),
	      "F_SETFL O_APPEND: F_GETFL has it");
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && write(fd, "c", 1) == 1, "write after a seek to 0");
	CHECK(fcntl(fd, F_SETFL, 0) == 0 && !(fcntl(fd, F_GETFL) & O_APPEND),
	      "F_SETFL 0 clears O_APPEND");
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && write(fd, "A", 1) == 1, "write at 0");
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && read(fd, buf, sizeof(buf)) == 3 &&
	      !memcmp(buf, "Abc", 3), "F_SETFL O_APPEND sent the write to the end: %.3s", buf);
	CHECK((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR, "the access mode stays");
	close(fd);
	CHECK(unlink("/t/pa") == 0 && unlink("/t/pf") == 0 && rmdir("/t/pd") == 0,
	      "remove /t/pa, /t/pf and /t/pd");
}

/* Regular files with data: open's flags, read, write, lseek, fstat, and
 * an unlinked file that stays readable until its last close. */
static void check_files(void)
{
	static char big[10000], back[10000];
	char buf[64];
	struct stat st;
	int fd, fd2;
	long n;

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
	/* past what one buffer can hold; a hole kmalloc cannot give */
	CHECK(lseek(fd, 0x7fffffffffffffffL - 10, SEEK_SET) > 0, "seek far");
	FAILS(write(fd, big, 100), EFBIG);	/* its end past 2^63 */
	CHECK(lseek(fd, 1L << 31, SEEK_SET) > 0, "seek 2 GiB");
	FAILS(write(fd, "x", 1), ENOSPC);
	CHECK(fstat(fd, &st) == 0 && st.st_size == sizeof(big), "the size is unchanged");
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

	/* initrd files copy on their first write, whole, even when the write
	 * ends inside them: rewrite motd's first byte with itself */
	fd = open("/etc/motd", O_RDWR);
	n = fd >= 0 ? read(fd, back, sizeof(back)) : -1;
	CHECK(n > 20 && !memcmp(back, "Welcome", 7), "/etc/motd reads");
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && write(fd, "W", 1) == 1, "a 1-byte write into /etc/motd");
	CHECK(fstat(fd, &st) == 0 && st.st_size == n && lseek(fd, 0, SEEK_SET) == 0 &&
	      read(fd, big, sizeof(big)) == n && !memcmp(big, back, n),
	      "the rest of /etc/motd survives its copy on write");
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
	check_posix_paths();
	check_dirs();

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

	/* qs_dcache: the LRU's statistics and the shrinker (root) */
	{
		struct qs_dcache_stats ds;

		FAILS(qs_dcache(QS_DCACHE_STATS, 0, NULL), EFAULT);
		FAILS(qs_dcache(99, 0, &ds), EINVAL);
		CHECK(unlink("/t/d/g") == 0 && qs_dcache(QS_DCACHE_SHRINK, 0, NULL) >= 1 &&
		      qs_dcache(QS_DCACHE_STATS, 0, &ds) == 0 && ds.lru == 0 && ds.lru_max > 0 &&
		      ds.dentries > 0, "an unlink's negative dentry shrunk: LRU %ld of %ld",
		      (long)ds.lru, (long)ds.lru_max);
		CHECK(qs_creat("/t/d/g", 0644, 1) == 0, "create /t/d/g again");
	}

	/* clean up */
	CHECK(unlink("/t/d/g") == 0, "unlink");
	FAILS(unlink("/t/d/g"), ENOENT);
	CHECK(rmdir("/t/d") == 0 && rmdir("/t") == 0, "rmdir");
	FAILS(stat("/t", &st), ENOENT);
	return check_summary();
}
