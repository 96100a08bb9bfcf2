/* SPDX-License-Identifier: MIT */
/* A recursive directory walk (symbolic links are not followed, so a loop of
 * links cannot trap it) that stops at each trace directory it finds. */
#include "trace_dirs.h"

#include <byteswap.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accwatch_events.h"
#include "trace_stats.h"
#include "util.h"

#define AW_MAX_DEPTH 32

void aw_trace_dirs_init(struct aw_trace_dirs *dirs)
{
	dirs->dirs = NULL;
	dirs->n = dirs->cap = 0;
	dirs->live = false;
}

void aw_trace_dirs_fini(struct aw_trace_dirs *dirs)
{
	for (size_t i = 0; i < dirs->n; i++)
		free(dirs->dirs[i]);
	free(dirs->dirs);
	aw_trace_dirs_init(dirs);
}

static void aw_trace_dirs_add(struct aw_trace_dirs *dirs, const char *dir)
{
	for (size_t i = 0; i < dirs->n; i++)
		if (strcmp(dirs->dirs[i], dir) == 0)
			return;
	AW_GROW(dirs->dirs, dirs->cap, dirs->n + 1);
	dirs->dirs[dirs->n++] = aw_xstrdup(dir);
}

static bool aw_has_metadata(const char *dir)
{
	char *path = aw_xasprintf("%s/metadata", dir);
	struct stat st;
	bool found = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	free(path);
	return found;
}

/* What a walk could not look into: the first directory it could not open
 * (and why), the first it did not enter for its depth. Owned strings. */
struct aw_walk_notes {
	char *unreadable;
	int unreadable_errno;
	char *too_deep;
};

/* Returns how many trace directories it met, already known ones included. */
static size_t aw_trace_dirs_walk(struct aw_trace_dirs *dirs, const char *dir,
				 int depth, struct aw_walk_notes *notes)
{
	if (aw_has_metadata(dir)) {
		aw_trace_dirs_add(dirs, dir);
		return 1;
	}
	size_t found = 0;
	if (depth >= AW_MAX_DEPTH) {
		if (!notes->too_deep)
			notes->too_deep = aw_xstrdup(dir);
		return found;
	}
	DIR *d = opendir(dir);
	if (!d) {
		if (!notes->unreadable) {
			notes->unreadable_errno = errno;
			notes->unreadable = aw_xstrdup(dir);
		}
		return found;
	}
	struct dirent *entry;
	while ((entry = readdir(d))) {
		if (strcmp(entry->d_name, ".") == 0 ||
		    strcmp(entry->d_name, "..") == 0)
			continue;
		char *child = aw_xasprintf("%s/%s", dir, entry->d_name);
		struct stat st;
		if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
			found +=
			    aw_trace_dirs_walk(dirs, child, depth + 1, notes);
		free(child);
	}
	closedir(d);
	return found;
}

static int aw_compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Opens path for reading only if it is a regular file: opening a FIFO (a
 * trace directory can hold anything) would block for good. */
static FILE *aw_open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	FILE *f = fdopen(fd, "rb");
	if (!f)
		close(fd);
	return f;
}

/* accwatch-run's note that recording could not work (accwatch_events.h): the
 * real reason a directory holds no trace. */
static bool aw_unrecorded_note(const char *dir, char *error, size_t error_size)
{
	char *path = aw_xasprintf("%s/%s", dir, ACCWATCH_UNRECORDED_NOTE);
	FILE *file = aw_open_regular(path);
	char line[768];
	bool found = false;

	free(path);
	if (!file)
		return false;
	if (fgets(line, sizeof(line), file) && line[0] != '\n') {
		line[strcspn(line, "\n")] = '\0';
		snprintf(error, error_size,
			 "nothing was recorded in %s: accwatch-run found that "
			 "%s",
			 dir, line);
		found = true;
	}
	fclose(file);
	return found;
}

enum aw_trace_dirs_status aw_trace_dirs_find(struct aw_trace_dirs *dirs,
					     const char *path, char *error,
					     size_t error_size)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(error, error_size, "cannot read %s: %s", path,
			 strerror(errno));
		return AW_TRACE_DIRS_UNREADABLE;
	}
	size_t before = dirs->n, found = 0;
	struct aw_walk_notes notes = {NULL, 0, NULL};
	if (S_ISDIR(st.st_mode)) {
		/* Keep the user's spelling, without a trailing slash. */
		char *dir = aw_xstrdup(path);
		size_t len = strlen(dir);
		while (len > 1 && dir[len - 1] == '/')
			dir[--len] = '\0';
		if (access(dir, R_OK | X_OK) != 0) {
			snprintf(error, error_size, "cannot read %s: %s", path,
				 strerror(errno));
			free(dir);
			return AW_TRACE_DIRS_UNREADABLE;
		}
		found = aw_trace_dirs_walk(dirs, dir, 0, &notes);
		free(dir);
	} else {
		const char *slash = strrchr(path, '/');
		const char *base = slash ? slash + 1 : path;
		if (strcmp(base, "metadata") == 0) {
			char *dir =
			    slash ? aw_xasprintf("%.*s", (int)(slash - path),
						 path)
				  : aw_xstrdup(".");
			if (!*dir) {
				free(dir);
				dir = aw_xstrdup("/");
			}
			aw_trace_dirs_add(dirs, dir);
			free(dir);
			found = 1;
		}
	}
	if (found == 0) {
		char why[512] = "";
		if (S_ISDIR(st.st_mode) &&
		    aw_unrecorded_note(path, error, error_size)) {
			free(notes.unreadable);
			free(notes.too_deep);
			return AW_TRACE_DIRS_NONE;
		}
		if (notes.unreadable)
			snprintf(
			    why, sizeof(why), "; %s could not be read (%s)",
			    notes.unreadable, strerror(notes.unreadable_errno));
		else if (notes.too_deep)
			snprintf(why, sizeof(why),
				 "; not looked below %s, %d directories deep: "
				 "give a path nearer the trace",
				 notes.too_deep, AW_MAX_DEPTH);
		snprintf(error, error_size,
			 "no trace under %s (no CTF `metadata` file%s): give "
			 "the directory accwatch-run -o wrote, or an LTTng "
			 "session's output directory",
			 path, why);
		free(notes.unreadable);
		free(notes.too_deep);
		return AW_TRACE_DIRS_NONE;
	}
	free(notes.unreadable);
	free(notes.too_deep);
	qsort(dirs->dirs + before, dirs->n - before, sizeof(*dirs->dirs),
	      aw_compare_strings);
	return AW_TRACE_DIRS_OK;
}

/* CTF 1.8 packetized metadata: each packet opens with this header (packed,
 * in the trace's byte order, which the magic reveals). */
#define AW_METADATA_MAGIC 0x75D11D57u
/* magic, uuid[16], checksum, content and packet sizes (bits), 5 bytes. */
#define AW_METADATA_HEADER_SIZE 37

static uint32_t aw_read_u32(const unsigned char *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return swap ? bswap_32(v) : v;
}

enum aw_metadata_status aw_metadata_check(const char *dir, char *error,
					  size_t error_size)
{
	enum aw_metadata_status status = AW_METADATA_CORRUPT;
	char *path = aw_xasprintf("%s/metadata", dir);
	FILE *f = aw_open_regular(path);
	unsigned char header[AW_METADATA_HEADER_SIZE];
	if (!f) {
		snprintf(error, error_size, "cannot read %s: %s", path,
			 errno == EINVAL ? "not a regular file"
					 : strerror(errno));
		goto end;
	}
	if (fseeko(f, 0, SEEK_END) != 0) {
		snprintf(error, error_size, "cannot read %s: %s", path,
			 strerror(errno));
		goto end;
	}
	off_t size = ftello(f);
	if (size < 4 || fseeko(f, 0, SEEK_SET) != 0 ||
	    fread(header, 1, 4, f) != 4) {
		snprintf(error, error_size, "%s is empty or unreadable", path);
		goto end;
	}
	uint32_t magic = aw_read_u32(header, false);
	if (magic != AW_METADATA_MAGIC &&
	    magic != bswap_32(AW_METADATA_MAGIC)) {
		/* Plain-text metadata: nothing to frame. */
		status = AW_METADATA_OK;
		goto end;
	}
	bool swap = magic != AW_METADATA_MAGIC;
	off_t offset = 0;
	while (offset < size) {
		if (size - offset < AW_METADATA_HEADER_SIZE ||
		    fseeko(f, offset, SEEK_SET) != 0 ||
		    fread(header, 1, sizeof(header), f) != sizeof(header)) {
			snprintf(
			    error, error_size,
			    "%s is cut inside a packet header at byte %lld",
			    path, (long long)offset);
			goto end;
		}
		uint32_t content_bits = aw_read_u32(header + 24, swap);
		uint32_t packet_bits = aw_read_u32(header + 28, swap);
		if (aw_read_u32(header, swap) != AW_METADATA_MAGIC ||
		    packet_bits % 8 != 0 ||
		    packet_bits < AW_METADATA_HEADER_SIZE * 8 ||
		    content_bits < AW_METADATA_HEADER_SIZE * 8 ||
		    content_bits > packet_bits) {
			snprintf(
			    error, error_size,
			    "%s has a malformed packet header at byte %lld",
			    path, (long long)offset);
			goto end;
		}
		if ((off_t)(packet_bits / 8) > size - offset) {
			snprintf(error, error_size,
				 "%s is cut inside the packet at byte %lld "
				 "(%lld of %u bytes)",
				 path, (long long)offset,
				 (long long)(size - offset), packet_bits / 8);
			goto end;
		}
		offset += packet_bits / 8;
	}
	status = AW_METADATA_OK;
end:
	if (f)
		fclose(f);
	free(path);
	return status;
}

/* LTTng's packet index (lttng-tools, ctf-index.h), big-endian: a header,
 * then one entry per packet that opens with its offset and size. */
#define AW_INDEX_MAGIC 0xC1F1DCC1u
#define AW_INDEX_HEADER_SIZE 16
#define AW_INDEX_ENTRY_MIN 16 /* offset (bytes), packet_size (bits) */

static uint64_t aw_read_be64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

static uint32_t aw_read_be32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

/* The end (in bytes) of the last packet an index file lists; 0 when the
 * file is no index we know. */
static uint64_t aw_index_end(const char *path)
{
	uint64_t end = 0;
	unsigned char header[AW_INDEX_HEADER_SIZE];
	FILE *f = aw_open_regular(path);
	if (!f)
		return 0;
	if (fread(header, 1, sizeof(header), f) != sizeof(header) ||
	    aw_read_be32(header) != AW_INDEX_MAGIC)
		goto end;
	uint32_t entry_size = aw_read_be32(header + 12);
	if (entry_size < AW_INDEX_ENTRY_MIN || entry_size > 4096)
		goto end;
	unsigned char entry[4096];
	while (fread(entry, 1, entry_size, f) == entry_size) {
		uint64_t offset = aw_read_be64(entry);
		uint64_t bits = aw_read_be64(entry + 8);
		if (offset > UINT64_MAX - bits / 8)
			continue; /* a damaged entry: not ours to judge */
		if (offset + bits / 8 > end)
			end = offset + bits / 8;
	}
end:
	fclose(f);
	return end;
}

/* The first entry of dir that is neither a regular file nor a directory. */
static enum aw_streams_status aw_special_files(const char *dir, char *error,
					       size_t error_size)
{
	enum aw_streams_status status = AW_STREAMS_OK;
	DIR *d = opendir(dir);
	struct dirent *entry;
	while (d && status == AW_STREAMS_OK && (entry = readdir(d))) {
		char *path = aw_xasprintf("%s/%s", dir, entry->d_name);
		struct stat st;
		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
		    !S_ISDIR(st.st_mode)) {
			snprintf(error, error_size,
				 "%s is not a regular file (a FIFO, socket or "
				 "device): move it out of the trace",
				 path);
			status = AW_STREAMS_SPECIAL;
		}
		free(path);
	}
	if (d)
		closedir(d);
	return status;
}

enum aw_streams_status aw_streams_check(const char *dir, char *error,
					size_t error_size)
{
	char *index_dir = aw_xasprintf("%s/index", dir);
	enum aw_streams_status status =
	    aw_special_files(dir, error, error_size);
	if (status == AW_STREAMS_OK)
		status = aw_special_files(index_dir, error, error_size);
	if (status != AW_STREAMS_OK) {
		free(index_dir);
		return status;
	}
	DIR *d = opendir(index_dir);
	struct dirent *entry;
	while (d && status == AW_STREAMS_OK && (entry = readdir(d))) {
		size_t len = strlen(entry->d_name);
		if (len <= 4 || strcmp(entry->d_name + len - 4, ".idx") != 0)
			continue;
		char *index = aw_xasprintf("%s/%s", index_dir, entry->d_name);
		char *stream =
		    aw_xasprintf("%s/%.*s", dir, (int)(len - 4), entry->d_name);
		struct stat st;
		uint64_t end;
		if (stat(stream, &st) == 0 && S_ISREG(st.st_mode) &&
		    (end = aw_index_end(index)) > (uint64_t)st.st_size) {
			snprintf(error, error_size,
				 "%s is cut: it has %lld of the %llu bytes "
				 "its index lists",
				 stream, (long long)st.st_size,
				 (unsigned long long)end);
			status = AW_STREAMS_SHORT;
		}
		free(stream);
		free(index);
	}
	if (d)
		closedir(d);
	free(index_dir);
	return status;
}

static int aw_compare_stalls(const void *a, const void *b)
{
	const struct aw_stall_note *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int aw_compare_unregistered(const void *a, const void *b)
{
	const struct aw_unregistered_note *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* A stall note's line (accwatch_record_stall.c) into stats. */
static void aw_stall_note_add(const char *line, struct aw_trace_stats *stats)
{
	long long pid, loader, iteration, batch, ms;
	char event[32];
	if (sscanf(line,
		   "pid=%lld run=%*u event=%31s loader=%lld "
		   "iteration=%lld batch=%lld stall_ms=%lld",
		   &pid, event, &loader, &iteration, &batch, &ms) != 6 ||
	    pid <= 0)
		return;
	AW_GROW(stats->stalls, stats->stalls_cap, stats->n_stalls + 1);
	struct aw_stall_note *note = &stats->stalls[stats->n_stalls++];
	*note = (struct aw_stall_note){pid, loader, iteration, batch, ms, ""};
	snprintf(note->event, sizeof(note->event), "%s", event);
}

/* An unregistered note's line (accwatch_record_register.c) into stats. */
static void aw_unregistered_note_add(const char *line,
				     struct aw_trace_stats *stats)
{
	long long pid, parent, ms;
	if (sscanf(line, "pid=%lld ppid=%lld run=%*u waited_ms=%lld", &pid,
		   &parent, &ms) != 3 ||
	    pid <= 0)
		return;
	AW_GROW(stats->unregistered, stats->unregistered_cap,
		stats->n_unregistered + 1);
	stats->unregistered[stats->n_unregistered++] =
	    (struct aw_unregistered_note){pid, parent, ms};
}

void aw_stall_notes_read(const char *dir, struct aw_trace_stats *stats)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t stalls = stats->n_stalls, unregistered = stats->n_unregistered;
	struct dirent *entry;
	while ((entry = readdir(d))) {
		bool stall = strncmp(entry->d_name, ACCWATCH_STALL_NOTE,
				     strlen(ACCWATCH_STALL_NOTE)) == 0;
		if (!stall && strncmp(entry->d_name, ACCWATCH_UNREGISTERED_NOTE,
				      strlen(ACCWATCH_UNREGISTERED_NOTE)) != 0)
			continue;
		char *path = aw_xasprintf("%s/%s", dir, entry->d_name);
		FILE *file = aw_open_regular(path);
		free(path);
		if (!file)
			continue;
		char line[256];
		if (fgets(line, sizeof(line), file)) {
			if (stall)
				aw_stall_note_add(line, stats);
			else
				aw_unregistered_note_add(line, stats);
		}
		fclose(file);
	}
	closedir(d);
	if (stats->n_stalls > stalls)
		qsort(stats->stalls + stalls, stats->n_stalls - stalls,
		      sizeof(*stats->stalls), aw_compare_stalls);
	if (stats->n_unregistered > unregistered)
		qsort(stats->unregistered + unregistered,
		      stats->n_unregistered - unregistered,
		      sizeof(*stats->unregistered), aw_compare_unregistered);
}
