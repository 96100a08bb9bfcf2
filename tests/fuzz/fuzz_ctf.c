/* SPDX-License-Identifier: MIT */
/* libFuzzer harness on the reader (analyzer/read/reader.c, reader_bt.c):
 * the input becomes a CTF trace directory in a scratch directory, read by
 * aw_reader_read as accwatch-report reads a trace: the metadata framing
 * and stream checks, babeltrace2 in a child process, its records into the
 * model. The model is then finished, checked and rendered. babeltrace2
 * crashing, aborting or hanging on a damaged trace is the reader's to
 * report as a message (a hang costs ACCWATCH_REPORT_TIMEOUT, 1 s here);
 * the analyzer's own crashes, leaks and sanitizer reports are findings,
 * in the child too (its reports go to files, checked after each input).
 *
 * Input: a flags byte, then parts separated by AW_CTF_SEP:
 *   part 0        the metadata file, when flags & 1; else the metadata of
 *                 a real trace (tests/fuzz/ctf/metadata) is used
 *   parts 1..4    stream files accwatch_0, accwatch_1, ...
 *   flags & 2     skip the metadata framing check
 *   flags & 4     the streams' index files too (index/accwatch_N.idx,
 *                 from the part after the streams, one for each) */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"
#include "findings.h"
#include "fuzz_util.h"
#include "model.h"
#include "query.h"
#include "watch.h"
#include "reader.h"
#include "render.h"

#define AW_CTF_SEP "\n@@accwatch-part@@\n"
#define AW_CTF_STREAMS 4
/* The child's memory beyond what it had at the fork: a damaged sequence
 * length makes babeltrace2 allocate without end, and under ASan the
 * reader sets no limit (its shadow memory counts as data). */
#define AW_CTF_CHILD_DATA (1024ull << 20)

/* A real trace's metadata (accwatch_trace_gen's, recorded by accwatch-run). */
#define AW_FUZZ_CTF_METADATA AW_FUZZ_DIR "/ctf/metadata"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Weak: a build without a sanitizer has none. */
void __sanitizer_set_report_path(const char *path) __attribute__((weak));
void __sanitizer_set_death_callback(void (*callback)(void))
    __attribute__((weak));

static uint8_t *aw_metadata;
static size_t aw_metadata_len;
static char aw_reports[512];

/* In the child: its sanitizer reports to files of the scratch directory,
 * its data capped, and libFuzzer's handlers gone: babeltrace2 aborting
 * there is the reader's to report, not an input of ours that crashed (the
 * parent judges the child's reports). */
static void aw_in_child(void)
{
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
	const int handled[] = {SIGABRT, SIGINT,  SIGTERM, SIGXFSZ,
			       SIGUSR1, SIGUSR2, SIGALRM};
	for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		signal(handled[i], SIG_DFL);
	if (__sanitizer_set_report_path)
		__sanitizer_set_report_path(aw_reports);
	FILE *status = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long kib = 0;
	while (status && fgets(line, sizeof(line), status))
		if (sscanf(line, "VmData: %llu kB", &kib) == 1)
			break;
	if (status)
		fclose(status);
	struct rlimit limit;
	if (kib && getrlimit(RLIMIT_DATA, &limit) == 0) {
		limit.rlim_cur = (kib << 10) + AW_CTF_CHILD_DATA;
		setrlimit(RLIMIT_DATA, &limit);
	}
}

static void aw_setup(void)
{
	FILE *f = fopen(AW_FUZZ_CTF_METADATA, "rb");
	if (!f) {
		perror(AW_FUZZ_CTF_METADATA);
		abort();
	}
	aw_metadata = malloc(1 << 20);
	aw_metadata_len = fread(aw_metadata, 1, 1 << 20, f);
	fclose(f);
	snprintf(aw_reports, sizeof(aw_reports), "%s/reports",
		 aw_fuzz_scratch());
	mkdir(aw_reports, 0755);
	snprintf(aw_reports + strlen(aw_reports),
		 sizeof(aw_reports) - strlen(aw_reports), "/child");
	pthread_atfork(NULL, NULL, aw_in_child);
	setenv(AW_ENV_READ_TIMEOUT, "1", 1);
}

/* The child's sanitizer reports: one on the analyzer's code (reader_bt.c
 * and what it calls) is a finding; one inside babeltrace2 or GLib is the
 * damaged trace's, which the reader reported as a crash. */
static void aw_check_child_reports(void)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%.*s",
		 (int)(strrchr(aw_reports, '/') - aw_reports), aw_reports);
	DIR *d = opendir(dir);
	struct dirent *entry;
	bool ours = false;
	while (d && (entry = readdir(d))) {
		if (entry->d_name[0] == '.')
			continue;
		char path[1024], line[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
		FILE *f = fopen(path, "re");
		int frames = 0;
		while (f && fgets(line, sizeof(line), f)) {
			if (strstr(line, "    #") != line)
				continue;
			/* The first frames past the sanitizer's own. */
			if (strstr(line, "in __asan") ||
			    strstr(line, "in __interceptor") ||
			    strstr(line, "in malloc") ||
			    strstr(line, "in calloc") ||
			    strstr(line, "in realloc") ||
			    strstr(line, "in free"))
				continue;
			if (frames++ < 3 && strstr(line, "/analyzer/")) {
				ours = true;
				break;
			}
		}
		if (f && ours) {
			rewind(f);
			while (fgets(line, sizeof(line), f))
				fputs(line, stderr);
		}
		if (f)
			fclose(f);
		remove(path);
	}
	if (d)
		closedir(d);
	if (ours) {
		fprintf(stderr, "fuzz_ctf: a sanitizer report in the reader's "
				"child, on the analyzer's code\n");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!aw_metadata)
		aw_setup();
	const char *root = aw_fuzz_scratch();
	char trace[512], path[1024];
	snprintf(trace, sizeof(trace), "%s/trace", root);
	mkdir(trace, 0755);
	uint8_t flags = size ? data[0] : 0;
	const uint8_t *parts[2 * AW_CTF_STREAMS + 1];
	size_t lens[2 * AW_CTF_STREAMS + 1];
	size_t n =
	    aw_fuzz_split(size ? data + 1 : data, size ? size - 1 : 0,
			  AW_CTF_SEP, parts, lens, 2 * AW_CTF_STREAMS + 1);
	snprintf(path, sizeof(path), "%s/metadata", trace);
	if (flags & 1)
		aw_fuzz_write(path, parts[0], lens[0]);
	else
		aw_fuzz_write(path, aw_metadata, aw_metadata_len);
	size_t streams = n - 1 > AW_CTF_STREAMS ? AW_CTF_STREAMS : n - 1;
	if (flags & 4 && streams > 1)
		streams = (n - 1) / 2;
	for (size_t i = 0; i < streams; i++) {
		snprintf(path, sizeof(path), "%s/accwatch_%zu", trace, i);
		aw_fuzz_write(path, parts[1 + i], lens[1 + i]);
	}
	if (flags & 4) {
		snprintf(path, sizeof(path), "%s/index", trace);
		mkdir(path, 0755);
		for (size_t i = 0; i < streams && 1 + streams + i < n; i++) {
			snprintf(path, sizeof(path),
				 "%s/index/accwatch_%zu.idx", trace, i);
			aw_fuzz_write(path, parts[1 + streams + i],
				      lens[1 + streams + i]);
		}
	}
	if (flags & 2)
		setenv(AW_ENV_NO_METADATA_CHECK, "1", 1);
	else
		unsetenv(AW_ENV_NO_METADATA_CHECK);

	struct aw_model *model = aw_model_create();
	struct aw_query query;
	struct aw_query_watch watch;
	memset(&query, 0, sizeof(query));
	aw_query_watch_init(&watch, &query);
	char error[2048] = "";
	const char *paths[] = {trace};
	enum aw_reader_status status =
	    aw_reader_read(paths, 1, model, error, sizeof(error));
	/* ACCWATCH_FUZZ_VERBOSE=1: what the reader made of each input. */
	if (getenv("ACCWATCH_FUZZ_VERBOSE"))
		fprintf(stderr, "fuzz_ctf: status %d, %" PRIu64 " events%s%s\n",
			(int)status, model->stats.events, *error ? ": " : "",
			error);
	if (status != AW_READER_OK && !*error) {
		fprintf(stderr, "fuzz_ctf: status %d without a message\n",
			(int)status);
		abort();
	}
	if (status == AW_READER_OK) {
		aw_model_finish(model);
		struct aw_findings findings;
		aw_findings_init(&findings);
		aw_checks_run(model, &findings);
		FILE *text = fopen("/dev/null", "w");
		if (text) {
			aw_render_text(text, model, &findings, &watch, false);
			fclose(text);
		}
		aw_findings_fini(&findings);
	}
	aw_model_destroy(model);
	aw_query_watch_fini(&watch);
	aw_check_child_reports();
	aw_fuzz_empty(trace);
	return 0;
}
