/* SPDX-License-Identifier: MIT */
/* Process ends: the wait family (a parent reaping or observing a child,
 * e.g. multiprocessing noticing a killed DataLoader worker) and _exit (how
 * forked workers end). Once attached, the recorder turns them into `exit`. */
#include <errno.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "accwatch_libc.h"
#include "accwatch_preload.h"

/* status as wait(2) fills it; only ends (not stops) are passed on. */
static void accwatch_child_seen(pid_t child, int status)
{
	int saved_errno;

	if (child <= 0 || !accwatch_preload_attached() ||
	    !(WIFEXITED(status) || WIFSIGNALED(status)))
		return;
	saved_errno = errno;
	accwatch_preload.hooks.on_child_exit(child, status);
	errno = saved_errno;
}

__attribute__((visibility("default"))) pid_t waitpid(pid_t pid, int *status,
						     int options)
{
	int local;
	pid_t child;

	if (!ACCWATCH_LIBC_READY(waitpid, "waitpid"))
		return -1;
	child = accwatch_preload.libc.waitpid(pid, status ? status : &local,
					      options);
	if (child > 0)
		accwatch_child_seen(child, status ? *status : local);
	return child;
}

__attribute__((visibility("default"))) pid_t wait(int *status)
{
	int local;
	pid_t child;

	if (!ACCWATCH_LIBC_READY(wait, "wait"))
		return -1;
	child = accwatch_preload.libc.wait(status ? status : &local);
	if (child > 0)
		accwatch_child_seen(child, status ? *status : local);
	return child;
}

__attribute__((visibility("default"))) pid_t wait3(int *status, int options,
						   struct rusage *usage)
{
	int local;
	pid_t child;

	if (!ACCWATCH_LIBC_READY(wait3, "wait3"))
		return -1;
	child = accwatch_preload.libc.wait3(status ? status : &local, options,
					    usage);
	if (child > 0)
		accwatch_child_seen(child, status ? *status : local);
	return child;
}

__attribute__((visibility("default"))) pid_t
wait4(pid_t pid, int *status, int options, struct rusage *usage)
{
	int local;
	pid_t child;

	if (!ACCWATCH_LIBC_READY(wait4, "wait4"))
		return -1;
	child = accwatch_preload.libc.wait4(pid, status ? status : &local,
					    options, usage);
	if (child > 0)
		accwatch_child_seen(child, status ? *status : local);
	return child;
}

/* waitid reports through siginfo; WNOWAIT observations (torch's SIGCHLD
 * handler peeks at its workers this way) are passed on too. */
__attribute__((visibility("default"))) int waitid(idtype_t type, id_t id,
						  siginfo_t *info, int options)
{
	int result;

	if (!ACCWATCH_LIBC_READY(waitid, "waitid"))
		return -1;
	result = accwatch_preload.libc.waitid(type, id, info, options);
	if (result == 0 && info && info->si_pid > 0) {
		if (info->si_code == CLD_EXITED)
			accwatch_child_seen(info->si_pid,
					    (info->si_status & 0xff) << 8);
		else if (info->si_code == CLD_KILLED ||
			 info->si_code == CLD_DUMPED)
			accwatch_child_seen(info->si_pid,
					    info->si_status & 0x7f);
	}
	return result;
}

/* _exit and _Exit: the exit event, then the real call (NULL when it cannot
 * be resolved: the exit_group system call it would make). */
static _Noreturn void accwatch_exit_now(void (*real)(int), int status)
{
	if (accwatch_preload_attached())
		accwatch_preload.hooks.on_exit_self(status);
	if (real)
		real(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

__attribute__((visibility("default"), noreturn)) void _exit(int status)
{
	accwatch_exit_now(ACCWATCH_LIBC_READY(exit_now, "_exit")
			      ? accwatch_preload.libc.exit_now
			      : NULL,
			  status);
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status)
{
	accwatch_exit_now(ACCWATCH_LIBC_READY(exit_now2, "_Exit")
			      ? accwatch_preload.libc.exit_now2
			      : NULL,
			  status);
}
