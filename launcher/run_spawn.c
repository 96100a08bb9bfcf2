/* SPDX-License-Identifier: MIT */
/* Starting a helper process (run_spawn.h). */
#define _GNU_SOURCE
#include "run_spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

extern char **environ;

/* In the child before exec. */
static void accwatch_run_spawn_setup(int out_fd, bool quiet, bool with_us)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	setpgid(0, 0);
	if (with_us)
		prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		if (quiet)
			dup2(null, STDERR_FILENO);
	}
	dup2(out_fd >= 0 ? out_fd : null, STDOUT_FILENO);
}

pid_t accwatch_run_spawn(char *const argv[], char *const envp[], int out_fd,
			 bool quiet, bool with_us)
{
	pid_t pid = fork();

	if (pid == 0) {
		accwatch_run_spawn_setup(out_fd, quiet, with_us);
		execvpe(argv[0], argv, envp ? envp : environ);
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid);
	return pid;
}
