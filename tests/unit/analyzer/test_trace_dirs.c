/* Finding trace directories: nested LTTng layouts, several traces, a path to
 * a metadata file, and paths that hold no trace. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_dirs.h"

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

Test(trace_dirs, nested_lttng_layouts)
{
	make_file("node0/ust/uid/0/64-bit/metadata");
	make_file("node0/ust/uid/0/64-bit/channel0_0");
	make_file("node1/ust/uid/0/64-bit/metadata");
	make_file("node1/ust/uid/0/64-bit/index/channel0_0.idx");
	make_file("notes/readme.txt");
	struct aw_trace_dirs dirs;
	aw_trace_dirs_init(&dirs);
	char error[256] = "";
	char path[192];
	snprintf(path, sizeof(path), "%s/", root);
	cr_assert_eq(aw_trace_dirs_find(&dirs, path, error, sizeof(error)),
		     AW_TRACE_DIRS_OK, "%s", error);
	cr_assert_eq(dirs.n, 2);
	char expected[192];
	snprintf(expected, sizeof(expected), "%s/node0/ust/uid/0/64-bit", root);
	cr_expect_str_eq(dirs.dirs[0], expected);
	snprintf(expected, sizeof(expected), "%s/node1/ust/uid/0/64-bit", root);
	cr_expect_str_eq(dirs.dirs[1], expected);

	/* The same trace again, through its metadata file: no duplicate. */
	snprintf(path, sizeof(path), "%s/node1/ust/uid/0/64-bit/metadata",
		 root);
	cr_assert_eq(aw_trace_dirs_find(&dirs, path, error, sizeof(error)),
		     AW_TRACE_DIRS_OK, "%s", error);
	cr_expect_eq(dirs.n, 2);
	aw_trace_dirs_fini(&dirs);
}

Test(trace_dirs, no_trace_and_unreadable)
{
	make_file("empty/file.txt");
	struct aw_trace_dirs dirs;
	aw_trace_dirs_init(&dirs);
	char error[512] = "";
	char path[192];
	snprintf(path, sizeof(path), "%s/empty", root);
	cr_expect_eq(aw_trace_dirs_find(&dirs, path, error, sizeof(error)),
		     AW_TRACE_DIRS_NONE);
	cr_expect(strstr(error, path) && strstr(error, "metadata"), "%s",
		  error);
	snprintf(path, sizeof(path), "%s/empty/file.txt", root);
	cr_expect_eq(aw_trace_dirs_find(&dirs, path, error, sizeof(error)),
		     AW_TRACE_DIRS_NONE);
	snprintf(path, sizeof(path), "%s/absent", root);
	cr_expect_eq(aw_trace_dirs_find(&dirs, path, error, sizeof(error)),
		     AW_TRACE_DIRS_UNREADABLE);
	cr_expect(strstr(error, "No such file"), "%s", error);
	cr_expect_eq(dirs.n, 0);
	aw_trace_dirs_fini(&dirs);
}

Test(trace_dirs, symlink_loops_are_not_followed)
{
	make_file("t/metadata");
	char link[96], target[96];
	snprintf(link, sizeof(link), "%s/t2", root);
	snprintf(target, sizeof(target), "%s", root);
	cr_assert_eq(symlink(target, link), 0);
	struct aw_trace_dirs dirs;
	aw_trace_dirs_init(&dirs);
	char error[256] = "";
	cr_assert_eq(aw_trace_dirs_find(&dirs, root, error, sizeof(error)),
		     AW_TRACE_DIRS_OK, "%s", error);
	cr_expect_eq(dirs.n, 1);
	aw_trace_dirs_fini(&dirs);
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
