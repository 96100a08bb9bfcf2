/* SPDX-License-Identifier: MIT */
/* The contract between libaccwatch.so, which is preloaded everywhere, and
 * libaccwatch-record.so, which it dlopens only into torch processes. */
#ifndef ACCWATCH_RECORD_API_H
#define ACCWATCH_RECORD_API_H

#include <signal.h>
#include <sys/types.h>

#include "accwatch_capi.h"

/* Bumped whenever this header changes: both objects must agree. */
#define ACCWATCH_RECORD_ABI 7
#define ACCWATCH_RECORD_INIT_SYMBOL "accwatch_record_init"
#define ACCWATCH_RECORD_LIBRARY "libaccwatch-record.so"
/* The preloaded object's file name, as LD_PRELOAD names it. */
#define ACCWATCH_PRELOAD_LIBRARY "libaccwatch.so"
/* Below the directory of libaccwatch.so once installed. */
#define ACCWATCH_RECORD_SUBDIR "accwatch"

/* Modules patched once imported, after torch's DataLoader: the bootstrap
 * names them (its _WATCHED, with what patches each) and libaccwatch.so
 * watches "import" audit events for them; at most this many. */
#define ACCWATCH_WATCHED_MAX 16

/* Called by libaccwatch.so; the recorder fills them at init. */
struct accwatch_record_hooks {
	/* An "os.fork" or "os.forkpty" audit event, GIL held: remember the
	 * Python stack of this thread for the fork event that follows. */
	void (*on_fork_audit)(void);
	/* The modules the bootstrap patches once imported (n_watched of
	 * them, the recorder's strings) and, when one of them finished
	 * importing, GIL held: the bootstrap patches it. */
	const char *watched[ACCWATCH_WATCHED_MAX];
	unsigned n_watched;
	void (*on_module)(const char *name);
	/* Around the real fork(), as liblttng-ust-fork does. The child hook
	 * runs before Python is fixed up: it calls no C-API and emits nothing.
	 */
	void (*before_fork)(sigset_t *sigset);
	void (*after_fork_parent)(sigset_t *sigset, pid_t child);
	void (*after_fork_child)(sigset_t *sigset);
	/* The wait family returned the end of child (status as wait(2) gives
	 * it), in any thread; the recorder emits `exit`. */
	void (*on_child_exit)(pid_t child, int status);
	/* _exit(status) or _Exit(status) is about to end this process. */
	void (*on_exit_self)(int status);
	/* Just before this process execs path (child 0), or after posix_spawn
	 * started child on path (-1: pid not asked for). May run in a vfork
	 * child: the recorder then emits nothing. */
	void (*on_exec)(const char *path, pid_t child);
	/* close(fd) unless fd is LTTng-UST's (then 0): close_cb does it. */
	int (*safe_close)(int fd, int (*close_cb)(int fd));
	/* 0 in a vfork child (its pid is not the recorder's). */
	int (*is_self)(void);
	/* A "sys.excepthook" audit event, GIL held, the error indicator
	 * saved: args is its tuple (hook, type, value, traceback), borrowed.
	 * The recorder emits `exception`. */
	void (*on_uncaught)(accwatch_pyobject *args);
};

enum accwatch_record_status {
	ACCWATCH_RECORD_OK = 0,
	ACCWATCH_RECORD_ERROR_ABI,       /* the two objects do not match */
	ACCWATCH_RECORD_ERROR_BOOTSTRAP, /* the Python bootstrap failed */
};

/* Runs with the GIL held, from the audit hook. api must outlive the
 * process (it lives in libaccwatch.so's state). */
typedef enum accwatch_record_status (*accwatch_record_init_fn)(
    int abi, const struct accwatch_capi *api, int debug,
    struct accwatch_record_hooks *hooks);

#endif
