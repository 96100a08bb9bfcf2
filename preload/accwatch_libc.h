/* SPDX-License-Identifier: MIT */
/* The libc functions libaccwatch.so interposes, as found with
 * dlsym(RTLD_NEXT, ...): resolved in the constructor, before any vfork child
 * could need them (dlsym takes locks), lazily for calls made earlier. */
#ifndef ACCWATCH_LIBC_H
#define ACCWATCH_LIBC_H

#include <signal.h>
#include <stddef.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

struct accwatch_libc {
	pid_t (*fork)(void);
	int (*clone)(int (*fn)(void *), void *stack, int flags, void *arg, ...);
	int (*execve)(const char *path, char *const argv[], char *const envp[]);
	int (*execv)(const char *path, char *const argv[]);
	int (*execvp)(const char *file, char *const argv[]);
	int (*execvpe)(const char *file, char *const argv[],
		       char *const envp[]);
	int (*posix_spawn)(pid_t *pid, const char *path,
			   const posix_spawn_file_actions_t *actions,
			   const posix_spawnattr_t *attributes,
			   char *const argv[], char *const envp[]);
	int (*posix_spawnp)(pid_t *pid, const char *file,
			    const posix_spawn_file_actions_t *actions,
			    const posix_spawnattr_t *attributes,
			    char *const argv[], char *const envp[]);
	pid_t (*waitpid)(pid_t pid, int *status, int options);
	pid_t (*wait)(int *status);
	pid_t (*wait3)(int *status, int options, struct rusage *usage);
	pid_t (*wait4)(pid_t pid, int *status, int options,
		       struct rusage *usage);
	int (*waitid)(idtype_t type, id_t id, siginfo_t *info, int options);
	int (*close)(int fd);
	int (*close_range)(unsigned int first, unsigned int last, int flags);
	void (*closefrom)(int lowfd);
	void (*exit_now)(int status);  /* _exit */
	void (*exit_now2)(int status); /* _Exit */
};

/* The table is accwatch_preload.libc (accwatch_preload.h). Resolves every
 * member still NULL (in the constructor). */
void accwatch_libc_resolve(void);

/* 1 when the member at offset is resolved (resolving it now if needed), else
 * 0 with errno = ENOSYS and one debug message naming symbol. */
int accwatch_libc_ready(size_t offset, const char *symbol);

#define ACCWATCH_LIBC_READY(member, symbol)                                    \
	(accwatch_preload.libc.member != NULL ||                               \
	 accwatch_libc_ready(offsetof(struct accwatch_libc, member), symbol))

#endif
