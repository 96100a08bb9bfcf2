/* The fork() interposer: in the preloaded object, as a dlopened recorder
 * cannot interpose libc; once attached it calls the recorder's hooks. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "accwatch_debug.h"
#include "accwatch_preload.h"

__attribute__((visibility("default"))) pid_t fork(void)
{
	pid_t (*real_fork)(void) = atomic_load(&accwatch_preload.real_fork);
	const struct accwatch_record_hooks *hooks = &accwatch_preload.hooks;
	sigset_t sigset;
	int saved_errno;
	pid_t pid = -1;

	if (!real_fork) {
		*(void **)&real_fork = dlsym(RTLD_NEXT, "fork");
		if (!real_fork) {
			ACCWATCH_DEBUG("unable to find the \"fork\" symbol");
			errno = ENOSYS;
			goto end;
		}
		atomic_store(&accwatch_preload.real_fork, real_fork);
	}
	if (atomic_load_explicit(&accwatch_preload.mode,
				 memory_order_acquire) !=
	    ACCWATCH_MODE_ATTACHED) {
		pid = real_fork();
		goto end;
	}
	saved_errno = errno;
	hooks->before_fork(&sigset);
	errno = saved_errno;
	pid = real_fork();
	saved_errno = errno;
	if (pid == 0)
		hooks->after_fork_child(&sigset);
	else
		hooks->after_fork_parent(&sigset, pid);
	errno = saved_errno;
end:
	return pid;
}
