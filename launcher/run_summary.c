/* SPDX-License-Identifier: MIT */
/* Closing message on stderr. The report command is printed ready to paste,
 * so the trace path is shell-quoted when it needs to be. */
#include "run_summary.h"

#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "run_log.h"

#define ACCWATCH_RUN_SHELL_PLAIN                                               \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:," \
	"./_-"

bool accwatch_run_shell_quote(const char *text, char *out, size_t out_len)
{
	size_t used = 0;

	if (text[0] != '\0' &&
	    strspn(text, ACCWATCH_RUN_SHELL_PLAIN) == strlen(text)) {
		if (strlen(text) >= out_len)
			goto too_small;
		memcpy(out, text, strlen(text) + 1);
		return true;
	}
	/* 'it'\''s': close the quote, an escaped quote, reopen. */
	if (used + 1 >= out_len)
		goto too_small;
	out[used++] = '\'';
	for (const char *p = text; *p; p++) {
		const char *piece = *p == '\'' ? "'\\''" : NULL;
		size_t piece_len = piece ? 4 : 1;

		if (used + piece_len + 1 >= out_len)
			goto too_small;
		if (piece)
			memcpy(out + used, piece, piece_len);
		else
			out[used] = *p;
		used += piece_len;
	}
	if (used + 2 > out_len)
		goto too_small;
	out[used++] = '\'';
	out[used] = '\0';
	return true;
too_small:
	if (out_len > 0)
		out[0] = '\0';
	return false;
}

/* The processes that stopped recording, the first one's note in words. */
static void
accwatch_run_summary_stalled(FILE *out,
			     const struct accwatch_run_summary *summary)
{
	long pid = -1, loader = -1, iteration = -1, batch = -1, ms = -1;
	char event[32] = "?", where[160];

	sscanf(summary->stalled_note,
	       "pid=%ld run=%*u event=%31s loader=%ld iteration=%ld batch=%ld "
	       "stall_ms=%ld",
	       &pid, event, &loader, &iteration, &batch, &ms);
	if (batch >= 0)
		snprintf(where, sizeof(where),
			 "pid %ld at batch %ld of its loader %ld, pass %ld",
			 pid, batch, loader, iteration);
	else
		snprintf(where, sizeof(where), "pid %ld at a %s event", pid,
			 event);
	fprintf(out,
		"%s: warning: %u process%s stopped recording after an event "
		"waited %ld ms for buffer space (the trace's consumer took "
		"nothing for that long) and ran on at full speed, %s%s; the "
		"report's counts are lower bounds.\n",
		ACCWATCH_RUN_PROGRAM, summary->stalled,
		summary->stalled == 1 ? "" : "es", ms, where,
		summary->stalled > 1 ? " the first" : "");
}

/* The processes the session daemon did not take in time. */
static void
accwatch_run_summary_unregistered(FILE *out,
				  const struct accwatch_run_summary *summary)
{
	long pid = -1, parent = -1, ms = -1;

	sscanf(summary->unregistered_note,
	       "pid=%ld ppid=%ld run=%*u waited_ms=%ld", &pid, &parent, &ms);
	fprintf(out,
		"%s: warning: %u process%s of the command waited %ld ms for "
		"the LTTng session daemon to take %s and ran on unrecorded "
		"until it did (pid %ld%s, child of %ld): a daemon slowed by "
		"a loaded machine or by many processes started at once; what "
		"%s read before is not in the trace, and the report's counts "
		"are lower bounds. A longer --stall-timeout waits longer.\n",
		ACCWATCH_RUN_PROGRAM, summary->unregistered,
		summary->unregistered == 1 ? "" : "es", ms,
		summary->unregistered == 1 ? "it" : "them", pid,
		summary->unregistered > 1 ? " the first" : "", parent,
		summary->unregistered == 1 ? "it" : "they");
}

void accwatch_run_summary_print(FILE *out,
				const struct accwatch_run_summary *summary)
{
	char quoted[PATH_MAX * 4 + 3];

	if (summary->discarded > 0 && summary->discard_mode)
		fprintf(out,
			"%s: warning: %" PRIu64
			" events were discarded (buffers full); the "
			"report's counts are lower bounds. Run again without "
			"--discard or "
			"with a larger --subbuf-size/--num-subbuf.\n",
			ACCWATCH_RUN_PROGRAM, summary->discarded);
	else if (summary->discarded > 0)
		fprintf(out,
			"%s: warning: %" PRIu64
			" events were lost although the session waits for "
			"buffer space: LTTng drops an event larger than a "
			"sub-buffer (%" PRIu64
			" bytes here) or one written by a program that set "
			"its own LTTng buffers; the report's counts are "
			"lower bounds. Run again with a larger "
			"--subbuf-size.\n",
			ACCWATCH_RUN_PROGRAM, summary->discarded,
			summary->subbuf_size);
	if (summary->stalled > 0)
		accwatch_run_summary_stalled(out, summary);
	if (summary->unregistered > 0)
		accwatch_run_summary_unregistered(out, summary);
	if (summary->teardown_stuck) {
		fprintf(out,
			"%s: warning: the trace in %s may be incomplete: the "
			"session daemon did not finish writing it\n",
			ACCWATCH_RUN_PROGRAM, summary->trace_path);
		return;
	}
	if (summary->disk_full) {
		/* LTTng's consumer drops what it cannot write and says so
		 * only in its own log: the full filesystem is the evidence. */
		fprintf(out,
			"%s: warning: the filesystem of %s is full (%" PRId64
			" KiB free): the trace is cut where the consumer could "
			"no longer write; accwatch-report reads what is there "
			"and its counts are lower bounds. Free space (or "
			"record with -o elsewhere) and run again.\n",
			ACCWATCH_RUN_PROGRAM, summary->trace_path,
			summary->free_bytes / 1024);
		return;
	}
	if (summary->trace_empty && summary->unrecorded[0]) {
		fprintf(out, "%s: warning: nothing was recorded in %s: %s\n",
			ACCWATCH_RUN_PROGRAM, summary->trace_path,
			summary->unrecorded);
		return;
	}
	if (summary->quiet)
		return;
	if (summary->trace_empty && summary->unregistered > 0)
		return;
	if (summary->trace_empty) {
		fprintf(
		    out,
		    "%s: nothing was recorded in %s: no process of the command "
		    "loaded the accwatch recorder (is it a Python program "
		    "using "
		    "torch.utils.data?)\n",
		    ACCWATCH_RUN_PROGRAM, summary->trace_path);
		return;
	}
	if (!accwatch_run_shell_quote(summary->trace_path, quoted,
				      sizeof(quoted)))
		snprintf(quoted, sizeof(quoted), "%s", summary->trace_path);
	fprintf(out, "%s: trace written to %s\n", ACCWATCH_RUN_PROGRAM,
		summary->trace_path);
	fprintf(out, "  accwatch-report %s\n", quoted);
}
