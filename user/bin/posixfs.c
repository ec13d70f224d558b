/*
 * posixfs: a file program as a POSIX programmer writes it, including only
 * the headers POSIX names for each call (stat and mkdir in <sys/stat.h>,
 * rmdir, unlink, chdir and getcwd in <unistd.h>, rename in <stdio.h>,
 * open and fcntl in <fcntl.h>) and none of Quiescent's own. That it
 * builds at all is half the test; run, it checks what each call does
 * (tests/scenarios/fs-user-smp2.toml). Prints "posixfs: PASS: N checks".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int checks, failed;

/* check.h is Quiescent's: the same two macros, from the C library only. */
#define CHECK(cond, what) do {						\
	checks++;							\
	if (!(cond)) {							\
		failed++;						\
		printf("posixfs: FAIL: %s (errno %d %s)\n", what, errno, strerror(errno)); \
	}								\
} while (0)
#define FAILS(call, err) do {						\
	errno = 0;							\
	CHECK((call) == -1 && errno == (err), #call " fails with " #err); \
} while (0)

int main(void)
{
	char buf[128];
	struct stat st;
	int fd;

	CHECK(mkdir("/px", 0755) == 0, "mkdir /px");
	FAILS(mkdir("/px", 0755), EEXIST);
	CHECK(stat("/px", &st) == 0 && S_ISDIR(st.st_mode), "stat /px: a directory");
	CHECK(chdir("/px") == 0 && getcwd(buf, sizeof(buf)) && !strcmp(buf, "/px"),
	      "chdir /px, getcwd");
	fd = open("f", O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0 && write(fd, "posix", 5) == 5 && close(fd) == 0, "create and write f");
	CHECK(stat("f", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 5, "stat f: 5 bytes");
	FAILS(stat("f/", &st), ENOTDIR);
	CHECK(rename("f", "g") == 0, "rename f g");
	FAILS(stat("f", &st), ENOENT);
	CHECK(mkdir("d", 0755) == 0 && rename("g", "d/g") == 0, "rename into a directory");
	FAILS(rmdir("d"), ENOTEMPTY);
	FAILS(unlink("d"), EISDIR);
	FAILS(rmdir("d/g"), ENOTDIR);
	FAILS(rename("d/g", "h/"), ENOTDIR);
	fd = open("d/g", O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 5 && !memcmp(buf, "posix", 5) &&
	      close(fd) == 0, "the data followed the renames");
	CHECK(unlink("d/g") == 0, "unlink d/g");
	FAILS(unlink("d/g"), ENOENT);
	CHECK(rmdir("d") == 0, "rmdir d");
	CHECK(chdir("/") == 0 && rmdir("/px") == 0, "rmdir /px");
	FAILS(stat("/px", &st), ENOENT);
	FAILS(rmdir("/"), EBUSY);

	if (failed) {
		printf("posixfs: FAIL: %d of %d checks\n", failed, checks);
		return 1;
	}
	printf("posixfs: PASS: %d checks\n", checks);
	return 0;
}
