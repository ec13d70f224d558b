/* POSIX system calls (user/lib/syscalls.c). */
#ifndef _USER_UNISTD_H
#define _USER_UNISTD_H

#include <sys/types.h>

#define STDIN_FILENO	0
#define STDOUT_FILENO	1
#define STDERR_FILENO	2

ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
__attribute__((noreturn)) void _exit(int status);
pid_t fork(void);
int execve(const char *path, char *const argv[], char *const envp[]);
int execv(const char *path, char *const argv[]);
pid_t getpid(void);
pid_t getppid(void);
uid_t getuid(void);
int setuid(uid_t uid);
unsigned int sleep(unsigned int seconds);
int usleep(unsigned long usec);
int brk(void *addr);
void *sbrk(long increment);

extern char **environ;

#endif
