/* The progress line of a long read (progress.h). */
#include "progress.h"

#include <dirent.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t aw_progress_total(const struct aw_trace_dirs *dirs)
{
	uint64_t total = 0;

	for (size_t i = 0; i < dirs->n; i++) {
		DIR *dir = opendir(dirs->dirs[i]);
		struct dirent *entry;

		if (!dir)
			continue;
		while ((entry = readdir(dir))) {
			char path[PATH_MAX];
			struct stat st;

			if (entry->d_name[0] == '.' ||
			    strcmp(entry->d_name, "metadata") == 0)
				continue;
			if ((size_t)snprintf(path, sizeof(path), "%s/%s",
					     dirs->dirs[i],
					     entry->d_name) >= sizeof(path))
				continue;
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
				total += (uint64_t)st.st_size;
		}
		closedir(dir);
	}
	return total;
}

void aw_progress_start(struct aw_progress *p, FILE *out, uint64_t total,
		       double now)
{
	memset(p, 0, sizeof(*p));
	if (out && total > 0 && isatty(fileno(out)))
		p->out = out;
	p->total = total;
	p->start = now;
}

void aw_progress_line(char *out, size_t size, uint64_t done, uint64_t total,
		      double elapsed)
{
	const double mib = 1024.0 * 1024.0;
	double rate;
	int len;

	if (done > total)
		done = total; /* packets of a file still being written */
	rate = elapsed > 0 ? (double)done / elapsed : 0;
	len = snprintf(out, size, "reading %.1f of %.1f MiB (%.0f%%)",
		       (double)done / mib, (double)total / mib,
		       100.0 * (double)done / (double)(total ? total : 1));
	if (len < 0 || (size_t)len >= size || rate <= 0)
		return;
	snprintf(out + len, size - (size_t)len, ", %.1f MiB/s, %.0f s left",
		 rate / mib, (double)(total - done) / rate);
}

void aw_progress_update(struct aw_progress *p, uint64_t done, double now)
{
	char line[128];

	if (!p->out || now - p->start < AW_PROGRESS_AFTER_S ||
	    now - p->last_draw < AW_PROGRESS_EVERY_S)
		return;
	aw_progress_line(line, sizeof(line), done, p->total, now - p->start);
	fprintf(p->out, "\raccwatch-report: %s\033[K", line);
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
