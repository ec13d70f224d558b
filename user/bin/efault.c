/*
 * efault: every system call that takes a pointer, given bad ones (NULL,
 * kernel addresses, non-canonical, unmapped, read-only, straddling the end
 * of the heap), must fail with EFAULT, and the process must live on.
 */
#define CHECK_PROG "efault"
#include <check.h>
#include <unistd.h>
#include <time.h>
#include <sched.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <sys/syscall.h>
#include <quiescent.h>

static void expect(const char *what, long r, int err)
{
	CHECK(r == -1 && errno == err, "%s returned %ld; expected errno %d", what, r, err);
}

#define KERNEL_DIRECT	((void *)0xffff800000100000UL)
#define KERNEL_TEXT	((void *)0xffffffff80100000UL)
#define NONCANONICAL	((void *)0x8000000000001000UL)
#define UNMAPPED	((void *)0x1000UL)

int main(void)
{
	char *heap_end = sbrk(0);
	char *argv_bad[] = { "true", (char *)KERNEL_TEXT, NULL };
	int st;

	expect("write(NULL)", write(1, NULL, 5), EFAULT);
	expect("write(kernel direct map)", write(1, KERNEL_DIRECT, 5), EFAULT);
	expect("write(kernel text)", write(1, KERNEL_TEXT, 16), EFAULT);
	expect("write(non-canonical)", write(1, NONCANONICAL, 4), EFAULT);
	expect("write(across the end of the heap)", write(1, heap_end - 4, 8), EFAULT);
	expect("read(kernel)", read(0, KERNEL_DIRECT, 10), EFAULT);
	expect("uname((void *)1)", uname((void *)1), EFAULT);
	expect("uname(kernel)", uname(KERNEL_DIRECT), EFAULT);
	expect("clock_gettime(unmapped)", clock_gettime(CLOCK_MONOTONIC, UNMAPPED), EFAULT);
	expect("clock_gettime(read-only text)", clock_gettime(CLOCK_MONOTONIC, (void *)main), EFAULT);
	expect("nanosleep(NULL)", nanosleep(NULL, NULL), EFAULT);
	expect("execve(bad path)", execve(KERNEL_TEXT, argv_bad, NULL), EFAULT);
	expect("execve(bad argv[1])", execve("/bin/true", argv_bad, NULL), EFAULT);
	expect("execve(bad argv)", execve("/bin/true", (char **)UNMAPPED, NULL), EFAULT);
	expect("qs_stats(kernel)", qs_stats(KERNEL_TEXT, 0), EFAULT);
	expect("qs_ps(NULL)", qs_ps(NULL, 4), EFAULT);
	expect("sched_setaffinity(NULL)", sched_setaffinity(0, 8, NULL), EFAULT);
	expect("sched_setscheduler(bad param)", sched_setscheduler(0, SCHED_FIFO, UNMAPPED), EFAULT);
	expect("syscall(999)", syscall(999), ENOSYS);
	expect("syscall(-1)", syscall(-1L), ENOSYS);

	pid_t pid = fork();
	if (pid == 0)
		_exit(7);
	expect("waitpid(bad status)", waitpid(pid, (int *)KERNEL_TEXT, 0), EFAULT);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 7,
	      "the child was lost after the EFAULT (status %#x)", st);
	if (failed)
		return check_summary();
	printf("efault: PASS: %d bad-pointer checks gave EFAULT (or ENOSYS), and I am still here\n",
	       checks);
	return 0;
}
