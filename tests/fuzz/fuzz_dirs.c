/* SPDX-License-Identifier: MIT */
/* libFuzzer harness on trace-directory discovery (analyzer/read/
 * trace_dirs.c): the input is a little program that builds a directory
 * tree in a scratch directory (directories, files with contents, symbolic
 * links anywhere, FIFOs, nesting past the walk's depth limit), which is
 * then searched for traces the way accwatch-report does before it starts
 * babeltrace2: aw_trace_dirs_find on the tree, a sub-directory or a
 * metadata file, the stall and unrecorded notes, the metadata framing and
 * stream checks and the progress measure on each trace found. What it
 * finds must be sorted, without duplicates, and each one a directory with
 * a regular `metadata` file, and no input may take AW_FUZZ_SLOW_S: a tree
 * of a hundred entries takes milliseconds, unless something blocks (in
 * the fuzzer libFuzzer's timer signal ends a blocked open() each second,
 * so a FIFO opened for reading shows as a slow input, not a hang).
 *
 * Program: one operation byte after another (op % 8):
 *   0 mkdir NAME and enter it      1 leave the current directory
 *   2 file NAME, LEN bytes follow  3 symlink NAME -> TARGET
 *   4 FIFO NAME                    5 mkdir N nested directories "d"
 *   6 choose the path searched     7 file NAME, empty
 * NAME: a byte; below 0x80 it picks a name LTTng or accwatch uses, else
 * (b & 15) bytes follow ('/' and NUL become '_'). */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "accwatch_events.h"
#include "fuzz_util.h"
#include "progress.h"
#include "trace_dirs.h"
#include "trace_stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define AW_FUZZ_ENTRIES 96
#define AW_FUZZ_DEPTH 48
#define AW_FUZZ_SLOW_S 2.0

static const char *const aw_names[] = {"metadata",
				       "index",
				       "ust",
				       "uid",
				       "0",
				       "64-bit",
				       "channel0_0",
				       "channel0_1",
				       "channel0_0.idx",
				       "channel0_1.idx",
				       ACCWATCH_STALL_NOTE "12",
				       ACCWATCH_STALL_NOTE "x",
				       ACCWATCH_UNRECORDED_NOTE,
				       ".",
				       "..",
				       "pid",
				       "accwatch-run",
				       "trace"};
static const char *const aw_targets[] = {
    ".",          "..",          "/",
    "../..",      "metadata",    "index",
    "loop",       "/dev/null",   "/nonexistent",
    "channel0_0", "../metadata", "/proc/self/fd/0"};
#define AW_COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct aw_cursor {
	const uint8_t *data;
	size_t size, at;
};

static int aw_byte(struct aw_cursor *c)
{
	return c->at < c->size ? c->data[c->at++] : -1;
}

/* A name from the input, into out. */
static void aw_name(struct aw_cursor *c, char *out, size_t out_size)
{
	int b = aw_byte(c);
	if (b < 0x80) {
		snprintf(out, out_size, "%s",
			 aw_names[(b < 0 ? 0 : b) % AW_COUNT(aw_names)]);
		return;
	}
	size_t len = (size_t)(b & 15), n = 0;
	while (n < len && n + 1 < out_size) {
		int ch = aw_byte(c);
		if (ch < 0)
			break;
		out[n++] = ch == '/' || ch == 0 ? '_' : (char)ch;
	}
	out[n] = '\0';
	if (!n)
		snprintf(out, out_size, "e");
}

/* given: the path searched was a `metadata` file, which is taken as
 * named (the framing and stream checks then refuse what is no regular
 * file). */
static void aw_check_found(const struct aw_trace_dirs *dirs, bool given)
{
	for (size_t i = 0; i < dirs->n; i++) {
		char path[8192], error[1024];
		struct stat st;
		snprintf(path, sizeof(path), "%s/metadata", dirs->dirs[i]);
		if (given && stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
		    (aw_metadata_check(dirs->dirs[i], error, sizeof(error)) ==
			 AW_METADATA_OK ||
		     aw_streams_check(dirs->dirs[i], error, sizeof(error)) !=
			 AW_STREAMS_SPECIAL)) {
			fprintf(stderr,
				"fuzz_dirs: %s is no regular file, "
				"yet passed the checks\n",
				path);
			abort();
		}
		if (!given && (stat(path, &st) != 0 || !S_ISREG(st.st_mode))) {
			fprintf(stderr, "fuzz_dirs: %s has no metadata file\n",
				dirs->dirs[i]);
			abort();
		}
		if (i > 0 && strcmp(dirs->dirs[i - 1], dirs->dirs[i]) >= 0) {
			fprintf(stderr, "fuzz_dirs: %s, %s: not sorted\n",
				dirs->dirs[i - 1], dirs->dirs[i]);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *root = aw_fuzz_scratch();
	struct aw_cursor c = {data, size, 0};
	char cwd[8192], path[8192], name[64];
	size_t cwd_len[AW_FUZZ_DEPTH + 1], depth = 0;
	snprintf(cwd, sizeof(cwd), "%s/t", root);
	mkdir(cwd, 0755);
	cwd_len[0] = strlen(cwd);
	snprintf(path, sizeof(path), "%s", cwd); /* the path searched */

	for (int n = 0, op; n < AW_FUZZ_ENTRIES && (op = aw_byte(&c)) >= 0;
	     n++) {
		char here[8192];
		switch (op % 8) {
		case 0:
			aw_name(&c, name, sizeof(name));
			if (depth == AW_FUZZ_DEPTH)
				break;
			snprintf(here, sizeof(here), "%s/%s", cwd, name);
			/* Only a directory just made: never one an input's
			 * link leads out of the scratch directory. */
			if (mkdir(here, 0755) == 0) {
				snprintf(cwd, sizeof(cwd), "%s", here);
				cwd_len[++depth] = strlen(cwd);
			}
			break;
		case 1:
			if (depth > 0)
				cwd[cwd_len[--depth]] = '\0';
			break;
		case 2:
		case 7: {
			aw_name(&c, name, sizeof(name));
			size_t len =
			    op % 8 == 2 ? (size_t)(aw_byte(&c) & 0xff) : 0;
			if (len > c.size - c.at)
				len = c.size - c.at;
			snprintf(here, sizeof(here), "%s/%s", cwd, name);
			aw_fuzz_write(here, c.data + c.at, len);
			c.at += len;
			break;
		}
		case 3: {
			aw_name(&c, name, sizeof(name));
			int t = aw_byte(&c);
			snprintf(here, sizeof(here), "%s/%s", cwd, name);
			if (t >= 0 && (size_t)t % 16 >= AW_COUNT(aw_targets))
				symlink(name, here); /* itself */
			else
				symlink(aw_targets[(t < 0 ? 0 : t) % 16 %
						   AW_COUNT(aw_targets)],
					here);
			break;
		}
		case 4:
			aw_name(&c, name, sizeof(name));
			snprintf(here, sizeof(here), "%s/%s", cwd, name);
			mkfifo(here, 0644);
			break;
		case 5: {
			int k = aw_byte(&c);
			for (int i = 0;
			     i < (k < 0 ? 1 : k % 40) && depth < AW_FUZZ_DEPTH;
			     i++) {
				snprintf(here, sizeof(here), "%s/d", cwd);
				if (mkdir(here, 0755) != 0)
					break;
				snprintf(cwd, sizeof(cwd), "%s", here);
				cwd_len[++depth] = strlen(cwd);
			}
			break;
		}
		case 6: {
			int k = aw_byte(&c);
			if (k >= 0 && k % 3 == 1)
				snprintf(path, sizeof(path), "%s/metadata",
					 cwd);
			else if (k >= 0 && k % 3 == 2)
				snprintf(path, sizeof(path), "%s/", cwd);
			else
				snprintf(path, sizeof(path), "%s", cwd);
			break;
		}
		}
	}

	/* The path the user gives is followed, wherever it leads (a link to
	 * / makes the walk read the whole machine): only below it are links
	 * not followed. The harness stays in its directory. */
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		snprintf(path, sizeof(path), "%s", cwd);
	bool given = stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
	/* What accwatch-report does with the path (reader.c). */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct aw_trace_stats stats;
	memset(&stats, 0, sizeof(stats));
	aw_stall_notes_read(path, &stats);
	free(stats.stalls);
	struct aw_trace_dirs dirs;
	aw_trace_dirs_init(&dirs);
	char error[1024];
	if (aw_trace_dirs_find(&dirs, path, error, sizeof(error)) ==
	    AW_TRACE_DIRS_OK) {
		aw_check_found(&dirs, given);
		for (size_t i = 0; i < dirs.n; i++) {
			aw_metadata_check(dirs.dirs[i], error, sizeof(error));
			aw_streams_check(dirs.dirs[i], error, sizeof(error));
		}
		uint64_t bytes, packets;
		aw_progress_measure(&dirs, &bytes, &packets);
	}
	aw_trace_dirs_fini(&dirs);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double took = (double)(t1.tv_sec - t0.tv_sec) +
		      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (took > AW_FUZZ_SLOW_S) {
		fprintf(stderr,
			"fuzz_dirs: the search took %.2f s: "
			"something blocked\n",
			took);
		abort();
	}
	aw_fuzz_empty(root);
	return 0;
}
