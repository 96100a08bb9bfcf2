/* SPDX-License-Identifier: MIT */
/* The job's processes (run_job.h), from the parent pids of /proc. */
#define _GNU_SOURCE
#include "run_job.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct accwatch_run_job_entry {
	pid_t pid, parent;
	bool ended; /* a zombie */
};

/* pid's parent and state from /proc/PID/stat ("pid (comm) S ppid ..."; the
 * name may hold spaces and parentheses: read after the last ')'). */
static bool accwatch_run_job_stat(pid_t pid, pid_t *parent, bool *ended)
{
	char path[64], line[512], state;
	FILE *stat;
	char *close_paren;
	long ppid;
	bool ok = false;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	stat = fopen(path, "re");
	if (!stat)
		return false;
	if (fgets(line, sizeof(line), stat) &&
	    (close_paren = strrchr(line, ')')) &&
	    sscanf(close_paren + 1, " %c %ld", &state, &ppid) == 2) {
		*parent = (pid_t)ppid;
		*ended = state == 'Z' || state == 'X';
		ok = true;
	}
	fclose(stat);
	return ok;
}

/* Every process of the machine (its pid namespace) with its parent. */
static size_t accwatch_run_job_table(struct accwatch_run_job_entry **table)
{
	DIR *proc = opendir("/proc");
	struct dirent *entry;
	size_t n = 0, cap = 0;

	*table = NULL;
	if (!proc)
		return 0;
	while ((entry = readdir(proc))) {
		struct accwatch_run_job_entry row;

		if (!isdigit((unsigned char)entry->d_name[0]))
			continue;
		row.pid = (pid_t)strtol(entry->d_name, NULL, 10);
		if (!accwatch_run_job_stat(row.pid, &row.parent, &row.ended))
			continue;
		if (n == cap) {
			size_t grown = cap ? cap * 2 : 512;
			struct accwatch_run_job_entry *bigger =
			    realloc(*table, grown * sizeof(**table));

			if (!bigger)
				break;
			*table = bigger;
			cap = grown;
		}
		(*table)[n++] = row;
	}
	closedir(proc);
	return n;
}

static bool accwatch_run_job_kept(pid_t pid, const pid_t keep[], size_t n_keep)
{
	for (size_t i = 0; i < n_keep; i++)
		if (keep[i] > 0 && keep[i] == pid)
			return true;
	return false;
}

/* Whether entry descends from us through no kept process. */
static bool accwatch_run_job_ours(const struct accwatch_run_job_entry *table,
				  size_t n, size_t at, const pid_t keep[],
				  size_t n_keep)
{
	pid_t self = getpid(), pid = table[at].pid;

	/* A chain longer than the table is a loop (pids reused while read). */
	for (size_t depth = 0; depth <= n; depth++) {
		size_t i;

		if (accwatch_run_job_kept(pid, keep, n_keep))
			return false;
		for (i = 0; i < n && table[i].pid != pid; i++)
			;
		if (i == n)
			return false;
		if (table[i].parent == self)
			return true;
		pid = table[i].parent;
		if (pid <= 1)
			return false;
	}
	return false;
}

size_t accwatch_run_job_processes(const pid_t keep[], size_t n_keep,
				  pid_t pids[], size_t max)
{
	struct accwatch_run_job_entry *table;
	size_t n = accwatch_run_job_table(&table), found = 0;

	for (size_t i = 0; i < n; i++) {
		if (table[i].pid == getpid() ||
		    !accwatch_run_job_ours(table, n, i, keep, n_keep))
			continue;
		if (table[i].ended) {
			if (table[i].parent == getpid())
				waitpid(table[i].pid, NULL, WNOHANG);
			continue;
		}
		if (found < max)
			pids[found++] = table[i].pid;
	}
	free(table);
	return found;
}
