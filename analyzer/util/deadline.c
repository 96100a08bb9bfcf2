/* SPDX-License-Identifier: MIT */
/* A deadline for the whole process (SIGALRM). */
#include "deadline.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static char aw_deadline_message[600];
static size_t aw_deadline_message_len;
static const char *aw_deadline_path;
static int aw_deadline_status;

static void aw_deadline_expired(int signal)
{
	(void)signal;
	ssize_t ignored =
	    write(STDERR_FILENO, aw_deadline_message, aw_deadline_message_len);
	(void)ignored;
	if (aw_deadline_path)
		unlink(aw_deadline_path);
	_exit(aw_deadline_status);
}

void aw_deadline_set(long long seconds, const char *message, int status)
{
	if (seconds <= 0)
		return;
	snprintf(aw_deadline_message, sizeof(aw_deadline_message), "%s",
		 message);
	aw_deadline_message_len = strlen(aw_deadline_message);
	aw_deadline_status = status;
	struct sigaction action = {.sa_handler = aw_deadline_expired};
	sigemptyset(&action.sa_mask);
	sigaction(SIGALRM, &action, NULL);
	struct itimerval timer = {.it_value = {.tv_sec = (time_t)seconds}};
	setitimer(ITIMER_REAL, &timer, NULL);
}

void aw_deadline_remove(const char *path)
{
	aw_deadline_path = path;
}

void aw_deadline_clear(void)
{
	struct itimerval off = {0};
	setitimer(ITIMER_REAL, &off, NULL);
	aw_deadline_path = NULL;
}
