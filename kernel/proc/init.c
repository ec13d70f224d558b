/*
 * Starting user mode: the initrd, then /bin/init as the first process.
 * init gets what follows " -- " on the kernel command line as its
 * argument: a shell script (commands separated by ';') that it runs with
 * `sh -c` before powering off, the non-interactive mode the tests use.
 * Without it init starts an interactive shell on the console.
 */
#include "proc.h"
#include <cmdline.h>
#include <syscall.h>
#include <printk.h>

void start_user_init(void);
void start_user_init(void)
{
	const char *script = cmdline_init_args();
	const char *argv[2] = { "init", script };
	int err;

	syscall_table_init();
	initrd_init();
	err = proc_start_init(argv, script[0] ? 2 : 1);
	if (err)
		printk("user: cannot start /bin/init (error %d); idling\n", err);
	else if (script[0])
		printk("user: /bin/init started, script '%s'\n", script);
	else
		printk("user: /bin/init started\n");
}
