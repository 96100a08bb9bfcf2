/* SPDX-License-Identifier: MIT */
/* The progress line of a long read (progress.h). */
#include "progress.h"

#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* CTF's packet index file: a header (magic, major and minor version, the
 * length of an entry), then one entry per packet, big-endian. */
#define AW_CTF_INDEX_MAGIC 0xC1F1DCC1u
#define AW_CTF_INDEX_HEADER 16

static uint32_t aw_be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

/* The packets an index file of size bytes lists; 0 when it is no index
 * file. */
static uint64_t aw_index_packets(const char *path, uint64_t size)
{
	unsigned char header[AW_CTF_INDEX_HEADER];
	uint64_t packets = 0;
	FILE *file = fopen(path, "rb");

	if (!file)
		return 0;
	if (fread(header, 1, sizeof(header), file) == sizeof(header) &&
	    aw_be32(header) == AW_CTF_INDEX_MAGIC && aw_be32(header + 12) > 0)
		packets = (size - AW_CTF_INDEX_HEADER) / aw_be32(header + 12);
	fclose(file);
	return packets;
}

/* Adds up the regular files of dir: their bytes, or (index) the packets
 * they list; the metadata file and hidden ones are left out. */
static void aw_progress_dir(const char *dir, bool index, uint64_t *sum)
{
	DIR *d = opendir(dir);
	struct dirent *entry;

	if (!d)
		return;
	while ((entry = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (entry->d_name[0] == '.' ||
		    strcmp(entry->d_name, "metadata") == 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     entry->d_name) >= sizeof(path))
			continue;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		*sum += index ? aw_index_packets(path, (uint64_t)st.st_size)
			      : (uint64_t)st.st_size;
	}
	closedir(d);
}

void aw_progress_measure(const struct aw_trace_dirs *dirs, uint64_t *bytes,
			 uint64_t *packets)
{
	*bytes = *packets = 0;
	for (size_t i = 0; i < dirs->n; i++) {
		char index[PATH_MAX];

		aw_progress_dir(dirs->dirs[i], false, bytes);
		if ((size_t)snprintf(index, sizeof(index), "%s/index",
				     dirs->dirs[i]) < sizeof(index))
			aw_progress_dir(index, true, packets);
	}
}

void aw_progress_start(struct aw_progress *p, FILE *out,
		       const struct aw_trace_dirs *dirs, double now)
{
	memset(p, 0, sizeof(*p));
	p->start = now;
	if (!out || !isatty(fileno(out)))
		return;
	aw_progress_measure(dirs, &p->bytes, &p->packets);
	if (p->bytes > 0 && p->packets > 0)
		p->out = out;
}

void aw_progress_line(char *out, size_t size, uint64_t done, uint64_t total,
		      double elapsed)
{
	const double mib = 1024.0 * 1024.0;
	double rate;
	int len;

	if (done > total)
		done = total; /* more packets than the index files listed */
	rate = elapsed > 0 ? (double)done / elapsed : 0;
	len = snprintf(out, size, "reading %.1f of %.1f MiB (%.0f%%)",
		       (double)done / mib, (double)total / mib,
		       100.0 * (double)done / (double)(total ? total : 1));
	if (len < 0 || (size_t)len >= size || rate <= 0)
		return;
	snprintf(out + len, size - (size_t)len, ", %.1f MiB/s, %.0f s left",
		 rate / mib, (double)(total - done) / rate);
}

void aw_progress_update(struct aw_progress *p, uint64_t packets, double now)
{
	char line[128];
	double share;

	if (!p->out || now - p->start < AW_PROGRESS_AFTER_S ||
	    now - p->last_draw < AW_PROGRESS_EVERY_S)
		return;
	share = (double)packets / (double)p->packets;
	aw_progress_line(line, sizeof(line),
			 (uint64_t)(share * (double)p->bytes), p->bytes,
			 now - p->start);
	fprintf(p->out, "\raccwatch-report: %s\033[K", line);
	fflush(p->out);
	p->last_draw = now;
	p->drawn = true;
}

void aw_progress_start_analysis(struct aw_progress *p, FILE *out, double start)
{
	memset(p, 0, sizeof(*p));
	p->start = start;
	if (out && isatty(fileno(out)))
		p->out = out;
}

void aw_progress_step(struct aw_progress *p, const char *stage, uint64_t done,
		      uint64_t total, double now)
{
	if (!p->out || now - p->start < AW_PROGRESS_AFTER_S ||
	    now - p->last_draw < AW_PROGRESS_EVERY_S)
		return;
	if (done > total)
		done = total;
	fprintf(p->out,
		"\raccwatch-report: analysing, %s %" PRIu64 " of %" PRIu64
		" (%.0f%%)\033[K",
		stage, done, total,
		100.0 * (double)done / (double)(total ? total : 1));
	fflush(p->out);
	p->last_draw = now;
	p->drawn = true;
}

void aw_progress_end(struct aw_progress *p)
{
	if (p->drawn) {
		fputs("\r\033[K", p->out);
		fflush(p->out);
	}
	p->drawn = false;
}
