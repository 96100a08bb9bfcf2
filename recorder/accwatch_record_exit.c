/* SPDX-License-Identifier: MIT */
/* The recorder's side of process ends, execs and closes: `exit` for children
 * the program reaped and for its own end (on_exit, _exit), `exception` for
 * the uncaught exception that ends it, `exec`, and LTTng's fds kept open.
 * Nothing is emitted from a vfork child (its pid differs from the one we
 * cached). */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "accwatch_record.h"
#include "accwatch_tp.h"

/* A vfork child shares our memory but not our pid. getpid() is a system
 * call (glibc caches nothing since 2.25). */
int accwatch_record_is_self(void)
{
	return getpid() == accwatch_recorder.pid;
}

/* liblttng-ust-common's fd tracker: LTTng's fds are not closed. */
int lttng_ust_safe_close_fd(int fd, int (*close_cb)(int fd));

int accwatch_record_safe_close(int fd, int (*close_cb)(int fd))
{
	/* A vfork child has its own fd table and execs next; the tracker's
	 * lock is shared with the parent's threads: not taken there. */
	if (!accwatch_record_is_self())
		return close_cb(fd);
	return lttng_ust_safe_close_fd(fd, close_cb);
}

/* One event of this process (not of a vfork child sharing its memory), when
 * its tracepoint is on. */
#define ACCWATCH_RECORD_OWN(event, info)                                       \
	do {                                                                   \
		if (lttng_ust_tracepoint_enabled(accwatch, event) &&           \
		    accwatch_record_is_self())                                 \
			ACCWATCH_BOUNDED(                                      \
			    #event, ACCWATCH_UNKNOWN, ACCWATCH_UNKNOWN,        \
			    ACCWATCH_UNKNOWN,                                  \
			    lttng_ust_tracepoint(accwatch, event, info));      \
	} while (0)

static void accwatch_record_exit(pid_t exited, int status, int signal)
{
	ACCWATCH_RECORD_OWN(
	    exit, (&(struct accwatch_exit_info){.run = accwatch_recorder.run,
						.pid = accwatch_recorder.pid,
						.exited_pid = exited,
						.status = status,
						.signal = signal}));
}

void accwatch_record_on_child_exit(pid_t child, int status)
{
	accwatch_record_exit(child,
			     WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			     WIFSIGNALED(status) ? WTERMSIG(status) : -1);
}

void accwatch_record_on_exit_self(int status)
{
	accwatch_record_exit(accwatch_recorder.pid, status & 0xff, -1);
}

void accwatch_record_on_exec(const char *path, pid_t child)
{
	ACCWATCH_RECORD_OWN(
	    exec, (&(struct accwatch_exec_info){.run = accwatch_recorder.run,
						.pid = accwatch_recorder.pid,
						.path = path ? path : "",
						.child_pid = child}));
}

/* The bootstrap's _on_uncaught(args) reads the exception (its type, str()
 * and where it was raised) and emits `exception`: only when the event is
 * on, since str() may run the program's own code. */
void accwatch_record_on_uncaught(accwatch_pyobject *args)
{
	if (!args || !accwatch_recorder.uncaught_fn ||
	    !lttng_ust_tracepoint_enabled(accwatch, exception))
		return;
	accwatch_recorder.api->Py_IncRef(args);
	accwatch_record_call_one(accwatch_recorder.uncaught_fn, args);
}

/* exit(): after Python finalised, before liblttng-ust's destructors (it is
 * registered after them, at attach time, so it runs first). */
static void accwatch_record_on_exit(int status, void *argument)
{
	(void)argument;
	accwatch_record_on_exit_self(status);
}

void accwatch_record_exit_init(void)
{
	on_exit(accwatch_record_on_exit, NULL);
}
