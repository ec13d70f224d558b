/* POSIX system calls (user/lib/syscalls.c; the filesystem's: user/lib/fs.c). */
#ifndef _USER_UNISTD_H
#define _USER_UNISTD_H

#include <sys/types.h>
#include <quiescent.h>

#define STDIN_FILENO	0
#define STDOUT_FILENO	1
#define STDERR_FILENO	2

#define SEEK_SET	QS_SEEK_SET
#define SEEK_CUR	QS_SEEK_CUR
#define SEEK_END	QS_SEEK_END

#define PIPE_BUF	QS_PIPE_BUF	/* writes up to this size are atomic */
#define OPEN_MAX	QS_OPEN_MAX	/* descriptors per process (ulimit -n) */

ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
__attribute__((noreturn)) void _exit(int status);
pid_t fork(void);
int execve(const char *path, char *const argv[], char *const envp[]);
int execv(const char *path, char *const argv[]);
pid_t getpid(void);
pid_t getppid(void);
uid_t getuid(void);
uid_t geteuid(void);			/* the same as getuid(): one id per process */
int setuid(uid_t uid);
gid_t getgid(void);
gid_t getegid(void);
int setgid(gid_t gid);
int close(int fd);
off_t lseek(int fd, off_t off, int whence);
int dup(int fd);
int dup2(int fd, int newfd);
int pipe(int fds[2]);
int pipe2(int fds[2], int flags);	/* O_NONBLOCK, O_CLOEXEC */
unsigned int sleep(unsigned int seconds);
int usleep(unsigned long usec);
int brk(void *addr);
void *sbrk(long increment);
int rmdir(const char *path);
int unlink(const char *path);
int chdir(const char *path);
/* The working directory into buf; buf, or NULL with errno (ERANGE, ENOENT). */
char *getcwd(char *buf, size_t size);

extern char **environ;

#endif
