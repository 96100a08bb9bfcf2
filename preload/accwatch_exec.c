/* SPDX-License-Identifier: MIT */
/* exec and posix_spawn interposers: put LD_PRELOAD and ACCWATCH_* back when a
 * launcher scrubbed the environment, and tell the recorder (exec event).
 * They may run in a vfork child: no allocation, no lock, stack only. */
#include <errno.h>
#include <stdatomic.h>
#include <unistd.h>

#include "accwatch_env_keep.h"
#include "accwatch_libc.h"
#include "accwatch_preload.h"

extern char **environ;

/* The environment to use, in the caller's frame: entries must hold
 * count(envp) + ACCWATCH_ENV_KEEP_MAX + 2 pointers. */
#define ACCWATCH_EXEC_ENV_DECLARE(envp)                                        \
	size_t accwatch_count =                                                \
	    accwatch_env_keep_count((envp), ACCWATCH_ENV_KEEP_ENTRIES_MAX);    \
	char                                                                   \
	    *accwatch_entries[accwatch_preload.env_keep.enabled                \
				  ? accwatch_count + ACCWATCH_ENV_KEEP_MAX + 2 \
				  : 1];                                        \
	char accwatch_preload_entry[accwatch_preload.env_keep.enabled          \
					? ACCWATCH_ENV_KEEP_PRELOAD_MAX        \
					: 1]

#define ACCWATCH_EXEC_ENV(envp)                                                \
	accwatch_env_keep_apply(                                               \
	    &accwatch_preload.env_keep, (envp), accwatch_entries,              \
	    sizeof(accwatch_entries) / sizeof(accwatch_entries[0]),            \
	    accwatch_preload_entry, sizeof(accwatch_preload_entry))

/* Before the real exec: the recorder emits unless this is a vfork child. */
static void accwatch_exec_notify(const char *path)
{
	int saved_errno = errno;

	if (accwatch_preload_attached())
		accwatch_preload.hooks.on_exec(path, 0);
	errno = saved_errno;
}

typedef int (*accwatch_exec_env_fn)(const char *, char *const[], char *const[]);
typedef int (*accwatch_exec_fn)(const char *, char *const[]);

/* One exec with an environment given: the one passed, repaired. */
static int accwatch_exec_env(accwatch_exec_env_fn real, const char *file,
			     char *const argv[], char *const envp[])
{
	ACCWATCH_EXEC_ENV_DECLARE(envp);

	accwatch_exec_notify(file);
	return real(file, argv, ACCWATCH_EXEC_ENV(envp));
}

/* One exec of environ: the plain call unless environ needs repair, then its
 * sibling that takes an environment. */
static int accwatch_exec_environ(accwatch_exec_fn plain,
				 accwatch_exec_env_fn with_env,
				 const char *file, char *const argv[])
{
	char *const *env = environ;
	ACCWATCH_EXEC_ENV_DECLARE(env);
	char *const *repaired;

	accwatch_exec_notify(file);
	repaired = ACCWATCH_EXEC_ENV(env);
	if (repaired == env)
		return plain(file, argv);
	return with_env(file, argv, repaired);
}

__attribute__((visibility("default"))) int
execve(const char *path, char *const argv[], char *const envp[])
{
	if (!ACCWATCH_LIBC_READY(execve, "execve"))
		return -1;
	return accwatch_exec_env(accwatch_preload.libc.execve, path, argv,
				 envp);
}

__attribute__((visibility("default"))) int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	if (!ACCWATCH_LIBC_READY(execvpe, "execvpe"))
		return -1;
	return accwatch_exec_env(accwatch_preload.libc.execvpe, file, argv,
				 envp);
}

/* execv and execvp use environ: the real ones unless it needs repair. */
__attribute__((visibility("default"))) int execv(const char *path,
						 char *const argv[])
{
	if (!ACCWATCH_LIBC_READY(execv, "execv") ||
	    !ACCWATCH_LIBC_READY(execve, "execve"))
		return -1;
	return accwatch_exec_environ(accwatch_preload.libc.execv,
				     accwatch_preload.libc.execve, path, argv);
}

__attribute__((visibility("default"))) int execvp(const char *file,
						  char *const argv[])
{
	if (!ACCWATCH_LIBC_READY(execvp, "execvp") ||
	    !ACCWATCH_LIBC_READY(execvpe, "execvpe"))
		return -1;
	return accwatch_exec_environ(accwatch_preload.libc.execvp,
				     accwatch_preload.libc.execvpe, file, argv);
}

/* After a successful spawn: the recorder emits exec for the child. */
static void accwatch_spawn_notify(int status, const pid_t *pid,
				  const char *path)
{
	int saved_errno = errno;

	if (status == 0 && accwatch_preload_attached())
		accwatch_preload.hooks.on_exec(path, pid ? *pid : -1);
	errno = saved_errno;
}

typedef int (*accwatch_spawn_fn)(pid_t *, const char *,
				 const posix_spawn_file_actions_t *,
				 const posix_spawnattr_t *, char *const[],
				 char *const[]);

/* One spawn with the environment repaired, then the exec event. */
static int accwatch_spawn(accwatch_spawn_fn real, pid_t *pid, const char *file,
			  const posix_spawn_file_actions_t *actions,
			  const posix_spawnattr_t *attributes,
			  char *const argv[], char *const envp[])
{
	ACCWATCH_EXEC_ENV_DECLARE(envp);
	int status =
	    real(pid, file, actions, attributes, argv, ACCWATCH_EXEC_ENV(envp));

	accwatch_spawn_notify(status, pid, file);
	return status;
}

__attribute__((visibility("default"))) int posix_spawn(
    pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
    const posix_spawnattr_t *attributes, char *const argv[], char *const envp[])
{
	if (!ACCWATCH_LIBC_READY(posix_spawn, "posix_spawn"))
		return ENOSYS;
	return accwatch_spawn(accwatch_preload.libc.posix_spawn, pid, path,
			      actions, attributes, argv, envp);
}

__attribute__((visibility("default"))) int posix_spawnp(
    pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
    const posix_spawnattr_t *attributes, char *const argv[], char *const envp[])
{
	if (!ACCWATCH_LIBC_READY(posix_spawnp, "posix_spawnp"))
		return ENOSYS;
	return accwatch_spawn(accwatch_preload.libc.posix_spawnp, pid, file,
			      actions, attributes, argv, envp);
}
