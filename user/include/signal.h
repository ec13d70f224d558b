/*
 * kill() and signal() (user/lib/file.c): every signal ends the process
 * unless it is ignored; there are no handlers, so signal() takes only
 * SIG_DFL and SIG_IGN (anything else: SIG_ERR, errno EINVAL).
 */
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

typedef void (*sighandler_t)(int);
#define SIG_DFL		((sighandler_t)QS_SIG_DFL)
#define SIG_IGN		((sighandler_t)QS_SIG_IGN)
#define SIG_ERR		((sighandler_t)-1)

int kill(pid_t pid, int sig);
sighandler_t signal(int sig, sighandler_t handler);

#endif
