/* SPDX-License-Identifier: MIT */
/* Finding trace directories: nested LTTng layouts, several traces, a path to
 * a metadata file, and paths that hold no trace. */
#include <criterion/criterion.h>
#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_dirs.h"
#include "trace_stats.h"

static char root[64];

static void make_file(const char *relative)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", root, relative);
	/* mkdir -p of its directory */
	for (char *slash = strchr(path + strlen(root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	FILE *f = fopen(path, "w");
	cr_assert(f, "cannot create %s", path);
	fputs("/* CTF 1.8 */\n", f);
	fclose(f);
}

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/aw-trace-dirs-XXXXXX");
	cr_assert(mkdtemp(root));
}

static void teardown(void)
{
	char command[128];
	snprintf(command, sizeof(command), "rm -rf '%s'", root);
	cr_expect_eq(system(command), 0);
}

TestSuite(trace_dirs, .init = setup, .fini = teardown);

/* The directories found so far, and the last path asked and its error. */
struct finder {
	struct aw_trace_dirs dirs;
	char path[192];
	char error[1024];
};

static void finder_init(struct finder *f)
{
	aw_trace_dirs_init(&f->dirs);
	f->error[0] = '\0';
}

/* aw_trace_dirs_find on root/relative, or on root itself when NULL. */
static enum aw_trace_dirs_status find_at(struct finder *f, const char *relative)
{
	if (relative)
		snprintf(f->path, sizeof(f->path), "%s/%s", root, relative);
	else
		snprintf(f->path, sizeof(f->path), "%s", root);
	return aw_trace_dirs_find(&f->dirs, f->path, f->error,
				  sizeof(f->error));
}

Test(trace_dirs, nested_lttng_layouts)
{
	make_file("node0/ust/uid/0/64-bit/metadata");
	make_file("node0/ust/uid/0/64-bit/channel0_0");
	make_file("node1/ust/uid/0/64-bit/metadata");
	make_file("node1/ust/uid/0/64-bit/index/channel0_0.idx");
	make_file("notes/readme.txt");
	struct finder f;
	finder_init(&f);
	cr_assert_eq(find_at(&f, ""), AW_TRACE_DIRS_OK, "%s", f.error);
	cr_assert_eq(f.dirs.n, 2);
	char expected[192];
	snprintf(expected, sizeof(expected), "%s/node0/ust/uid/0/64-bit", root);
	cr_expect_str_eq(f.dirs.dirs[0], expected);
	snprintf(expected, sizeof(expected), "%s/node1/ust/uid/0/64-bit", root);
	cr_expect_str_eq(f.dirs.dirs[1], expected);

	/* The same trace again, through its metadata file: no duplicate. */
	cr_assert_eq(find_at(&f, "node1/ust/uid/0/64-bit/metadata"),
		     AW_TRACE_DIRS_OK, "%s", f.error);
	cr_expect_eq(f.dirs.n, 2);
	aw_trace_dirs_fini(&f.dirs);
}

Test(trace_dirs, no_trace_and_unreadable)
{
	make_file("empty/file.txt");
	struct finder f;
	finder_init(&f);
	cr_expect_eq(find_at(&f, "empty"), AW_TRACE_DIRS_NONE);
	cr_expect(strstr(f.error, f.path) && strstr(f.error, "metadata"), "%s",
		  f.error);
	cr_expect_eq(find_at(&f, "empty/file.txt"), AW_TRACE_DIRS_NONE);
	cr_expect_eq(find_at(&f, "absent"), AW_TRACE_DIRS_UNREADABLE);
	cr_expect(strstr(f.error, "No such file"), "%s", f.error);
	cr_expect_eq(f.dirs.n, 0);
	aw_trace_dirs_fini(&f.dirs);
}

Test(trace_dirs, too_deep_says_where_it_stopped)
{
	/* 40 directories down: the walk stops at 32 and says where. */
	char relative[160] = "";
	for (int i = 0; i < 40; i++)
		strcat(relative, "d/");
	strcat(relative, "metadata");
	make_file(relative);
	struct finder f;
	finder_init(&f);
	cr_expect_eq(find_at(&f, NULL), AW_TRACE_DIRS_NONE);
	cr_expect(strstr(f.error, "32 directories deep") &&
		      strstr(f.error, "not looked below"),
		  "%s", f.error);
	aw_trace_dirs_fini(&f.dirs);
}

Test(trace_dirs, symlink_loops_are_not_followed)
{
	make_file("t/metadata");
	char link[96], target[96];
	snprintf(link, sizeof(link), "%s/t2", root);
	snprintf(target, sizeof(target), "%s", root);
	cr_assert_eq(symlink(target, link), 0);
	struct finder f;
	finder_init(&f);
	cr_assert_eq(find_at(&f, NULL), AW_TRACE_DIRS_OK, "%s", f.error);
	cr_expect_eq(f.dirs.n, 1);
	aw_trace_dirs_fini(&f.dirs);
}

/* Writes root/m/metadata: `packets` packets of 64 bytes (header + text) in
 * the given byte order, then cuts the file to `cut` bytes (0: no cut). */
static void write_packetized(int packets, bool big_endian, long cut)
{
	char path[192];
	snprintf(path, sizeof(path), "%s/m", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/m/metadata", root);
	FILE *f = fopen(path, "wb");
	cr_assert(f);
	for (int p = 0; p < packets; p++) {
		unsigned char packet[64];
		memset(packet, ' ', sizeof(packet));
		uint32_t fields[] = {0x75D11D57u, 0, 0,      0,
				     0,           0, 50 * 8, 64 * 8};
		for (int i = 0; i < 8; i++) {
			uint32_t v = fields[i];
			unsigned char *at = i == 0 ? packet
					    : i <= 4
						? packet + 4 + (i - 1) * 4
						: packet + 20 + (i - 5) * 4;
			for (int b = 0; b < 4; b++)
				at[b] = (unsigned char)(big_endian
							    ? v >> (24 - 8 * b)
							    : v >> (8 * b));
		}
		memset(packet + 32, 0, 5);
		fwrite(packet, 1, sizeof(packet), f);
	}
	fclose(f);
	if (cut)
		cr_assert_eq(truncate(path, cut), 0);
}

static enum aw_metadata_status check_m(char *error)
{
	char dir[192];
	snprintf(dir, sizeof(dir), "%s/m", root);
	return aw_metadata_check(dir, error, 512);
}

Test(trace_dirs, metadata_framing)
{
	char error[512] = "";
	write_packetized(3, false, 0);
	cr_expect_eq(check_m(error), AW_METADATA_OK, "%s", error);
	write_packetized(3, true, 0);
	cr_expect_eq(check_m(error), AW_METADATA_OK, "%s", error);
	write_packetized(3, false, 64 * 2 + 40); /* inside the third packet */
	cr_expect_eq(check_m(error), AW_METADATA_CORRUPT);
	cr_expect(strstr(error, "cut inside the packet at byte 128"), "%s",
		  error);
	write_packetized(3, false, 64 * 2 + 20); /* inside its header */
	cr_expect_eq(check_m(error), AW_METADATA_CORRUPT);
	cr_expect(strstr(error, "packet header"), "%s", error);
	write_packetized(1, false, 2);
	cr_expect_eq(check_m(error), AW_METADATA_CORRUPT);
	make_file("m/metadata"); /* plain text */
	cr_expect_eq(check_m(error), AW_METADATA_OK, "%s", error);
}

/* Writes root/s/NAME of `size` bytes and root/s/index/NAME.idx listing
 * packets of 4096 bytes at 0, 4096, ... (`packets` of them), big-endian
 * like LTTng's index; magic 0 makes an index that is not one. */
static void write_stream(const char *name, long size, int packets,
			 uint32_t magic)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/s", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/s/index", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/s/%s", root, name);
	FILE *f = fopen(path, "wb");
	cr_assert(f);
	fclose(f);
	cr_assert_eq(truncate(path, size), 0);
	snprintf(path, sizeof(path), "%s/s/index/%s.idx", root, name);
	f = fopen(path, "wb");
	cr_assert(f);
	uint32_t header[4] = {htobe32(magic), htobe32(1), htobe32(1),
			      htobe32(72)};
	fwrite(header, sizeof(header), 1, f);
	for (int p = 0; p < packets; p++) {
		uint64_t entry[9] = {htobe64((uint64_t)p * 4096),
				     htobe64(4096 * 8), htobe64(4000 * 8)};
		fwrite(entry, sizeof(entry), 1, f);
	}
	fclose(f);
}

Test(trace_dirs, streams_against_their_index)
{
	char error[512] = "", dir[192];
	snprintf(dir, sizeof(dir), "%s/s", root);
	write_stream("chan_0", 8192, 2, 0xC1F1DCC1u);
	write_stream("chan_1", 4096, 1, 0xC1F1DCC1u);
	cr_expect_eq(aw_streams_check(dir, error, sizeof(error)), AW_STREAMS_OK,
		     "%s", error);
	/* Cut at a packet boundary: babeltrace2 would say nothing. */
	write_stream("chan_1", 4096, 3, 0xC1F1DCC1u);
	cr_expect_eq(aw_streams_check(dir, error, sizeof(error)),
		     AW_STREAMS_SHORT);
	cr_expect(strstr(error, "chan_1 is cut: it has 4096 of the 12288 "
				"bytes its index lists"),
		  "%s", error);
	/* An index that is no LTTng index is not held against the stream. */
	write_stream("chan_1", 100, 3, 0);
	cr_expect_eq(aw_streams_check(dir, error, sizeof(error)), AW_STREAMS_OK,
		     "%s", error);
	/* No index directory at all. */
	snprintf(dir, sizeof(dir), "%s", root);
	cr_expect_eq(aw_streams_check(dir, error, sizeof(error)), AW_STREAMS_OK,
		     "%s", error);
}

/* A file of root holding text. */
static void write_file(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", root, name);
	FILE *f = fopen(path, "w");
	cr_assert(f, "cannot create %s", path);
	fputs(text, f);
	fclose(f);
}

Test(trace_dirs, stall_notes_are_read_by_pid_and_junk_passed_over)
{
	write_file("accwatch-stalled.41",
		   "pid=41 run=7 event=batch loader=3 iteration=1 batch=952 "
		   "stall_ms=10000\n");
	write_file("accwatch-stalled.9",
		   "pid=9 run=7 event=fork loader=-1 iteration=-1 batch=-1 "
		   "stall_ms=10000\n");
	write_file("accwatch-stalled.x", "not a note\n");
	write_file("other", "pid=5 run=1 event=batch\n");
	struct aw_trace_stats stats = {0};
	aw_stall_notes_read(root, &stats);
	cr_assert_eq(stats.n_stalls, 2);
	cr_expect_eq(stats.stalls[0].pid, 9);
	cr_expect_str_eq(stats.stalls[0].event, "fork");
	cr_expect_eq(stats.stalls[0].batch, -1);
	cr_expect_eq(stats.stalls[1].pid, 41);
	cr_expect_eq(stats.stalls[1].batch, 952);
	cr_expect_eq(stats.stalls[1].loader, 3);
	cr_expect_eq(stats.stalls[1].stall_ms, 10000);
	/* A directory that is not there adds nothing. */
	aw_stall_notes_read("/nonexistent/accwatch", &stats);
	cr_expect_eq(stats.n_stalls, 2);
	free(stats.stalls);
}
