/* kill() (user/lib/file.c): every signal ends the process; no handlers. */
#ifndef _USER_SIGNAL_H
#define _USER_SIGNAL_H

#include <sys/types.h>
#include <quiescent.h>

#define SIGHUP		QS_SIGHUP
#define SIGINT		QS_SIGINT
#define SIGQUIT		QS_SIGQUIT
#define SIGILL		QS_SIGILL
#define SIGTRAP		QS_SIGTRAP
#define SIGABRT		QS_SIGABRT
#define SIGBUS		QS_SIGBUS
#define SIGFPE		QS_SIGFPE
#define SIGKILL		QS_SIGKILL
#define SIGUSR1		QS_SIGUSR1
#define SIGSEGV		QS_SIGSEGV
#define SIGUSR2		QS_SIGUSR2
#define SIGPIPE		QS_SIGPIPE
#define SIGALRM		QS_SIGALRM
#define SIGTERM		QS_SIGTERM

int kill(pid_t pid, int sig);

#endif
