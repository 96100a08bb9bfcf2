/* SPDX-License-Identifier: MIT */
/* The fork() and clone() interposers: in the preloaded object, as a
 * dlopened recorder cannot interpose libc; once attached they call the
 * recorder's hooks around the real call, as liblttng-ust-fork does. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>

#include "accwatch_libc.h"
#include "accwatch_preload.h"

__attribute__((visibility("default"))) pid_t fork(void)
{
	const struct accwatch_record_hooks *hooks = &accwatch_preload.hooks;
	sigset_t sigset;
	int saved_errno;
	pid_t pid = -1;

	if (!ACCWATCH_LIBC_READY(fork, "fork"))
		goto end;
	if (!accwatch_preload_attached()) {
		pid = accwatch_preload.libc.fork();
		goto end;
	}
	saved_errno = errno;
	hooks->before_fork(&sigset);
	errno = saved_errno;
	pid = accwatch_preload.libc.fork();
	saved_errno = errno;
	if (pid == 0)
		hooks->after_fork_child(&sigset);
	else
		hooks->after_fork_parent(&sigset, pid);
	errno = saved_errno;
end:
	return pid;
}

/* What the child of a clone() without CLONE_VM needs before the caller's
 * function runs: on the parent's stack, which the child has a copy of. */
struct accwatch_clone_call {
	int (*fn)(void *);
	void *arg;
	sigset_t sigset;
};

static int accwatch_clone_child(void *data)
{
	struct accwatch_clone_call *call = data;

	accwatch_preload.hooks.after_fork_child(&call->sigset);
	return call->fn(call->arg);
}

/* A clone() that shares memory makes a thread (or a vfork-like child that
 * must not run our code): passed on untouched. One that does not is a
 * fork. */
__attribute__((visibility("default"))) int clone(int (*fn)(void *), void *stack,
						 int flags, void *arg, ...)
{
	struct accwatch_clone_call call = {.fn = fn, .arg = arg};
	va_list extra;
	pid_t *parent_tid;
	void *tls;
	pid_t *child_tid;
	int saved_errno;
	int result = -1;

	va_start(extra, arg);
	parent_tid = va_arg(extra, pid_t *);
	tls = va_arg(extra, void *);
	child_tid = va_arg(extra, pid_t *);
	va_end(extra);
	if (!ACCWATCH_LIBC_READY(clone, "clone"))
		goto end;
	if ((flags & CLONE_VM) || !accwatch_preload_attached()) {
		result = accwatch_preload.libc.clone(
		    fn, stack, flags, arg, parent_tid, tls, child_tid);
		goto end;
	}
	saved_errno = errno;
	accwatch_preload.hooks.before_fork(&call.sigset);
	errno = saved_errno;
	result = accwatch_preload.libc.clone(accwatch_clone_child, stack, flags,
					     &call, parent_tid, tls, child_tid);
	saved_errno = errno;
	accwatch_preload.hooks.after_fork_parent(&call.sigset, result);
	errno = saved_errno;
end:
	return result;
}
