/*
 * The module notifier chain (kernel/module/notifier.c):
 *
 *   ktest=module_notifier   a callback that sleeps a tick on every call
 *       (legal: the chain is read under SRCU) sees hello.ko COMING, LIVE
 *       and GOING, in that order, and nothing after it unregistered.
 */
#include <ktest.h>
#include <module.h>
#include <notifier.h>
#include <sched.h>
#include <string.h>
#include <errno.h>
#include "module_test.h"

static char notes[8];
static unsigned int nr_notes;

static int note_cb(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;

	schedule_timeout_uninterruptible(1);	/* a callback may sleep */
	if (strcmp(mod->name, "hello"))
		return NOTIFY_DONE;
	if (nr_notes < sizeof(notes) - 1)
		notes[nr_notes++] = state == MODULE_STATE_COMING ? 'C' :
				    state == MODULE_STATE_LIVE ? 'L' :
				    state == MODULE_STATE_GOING ? 'G' : '?';
	return NOTIFY_OK;
}

static struct notifier_block note_nb = { .notifier_call = note_cb };

KTEST(module_notifier)
{
	char err[QS_MODULE_ERRLEN];
	const void *img;
	size_t size;

	KT_ASSERT(t, !test_module_image("hello", &img, &size), "no hello.ko in the initrd");
	nr_notes = 0;
	KT_ASSERT(t, register_module_notifier(&note_nb) == 0, "register");
	KT_EXPECT(t, register_module_notifier(&note_nb) == -EEXIST, "registered twice");
	KT_ASSERT(t, load_module(img, size, NULL, err, sizeof(err)) == 0, "insmod hello: %s", err);
	KT_EXPECT(t, unload_module("hello", 0, NULL) == 0, "rmmod hello");
	KT_EXPECT(t, unregister_module_notifier(&note_nb) == 0, "unregister");
	KT_ASSERT(t, load_module(img, size, NULL, err, sizeof(err)) == 0, "insmod hello again: %s", err);
	KT_EXPECT(t, unload_module("hello", 0, NULL) == 0, "rmmod hello again");
	notes[nr_notes] = 0;
	KT_EXPECT(t, !strcmp(notes, "CLG"), "the callback saw \"%s\", not COMING LIVE GOING once",
		  notes);
}
