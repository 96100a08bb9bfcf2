/* SPDX-License-Identifier: MIT */
/* How DataLoader workers ended: killed or crashed (worker-died), or never
 * back from a fetch (worker-stuck); and what every check of how a process
 * ended shares (checks_rank_exit.c has the ranks). Each finding quotes
 * what the process was reading: that is where the bug is reproduced. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "accwatch_events.h"
#include "checks_private.h"
#include "util.h"

const char *aw_signal_name(int32_t sig)
{
	switch (sig) {
	case SIGKILL:
		return "SIGKILL";
	case SIGSEGV:
		return "SIGSEGV";
	case SIGBUS:
		return "SIGBUS";
	case SIGABRT:
		return "SIGABRT";
	case SIGILL:
		return "SIGILL";
	case SIGFPE:
		return "SIGFPE";
	case SIGTERM:
		return "SIGTERM";
	case SIGINT:
		return "SIGINT";
	case SIGHUP:
		return "SIGHUP";
	case SIGPIPE:
		return "SIGPIPE";
	default:
		return "a signal";
	}
}

/* The signals launchers, schedulers, users and the DataLoader itself stop
 * processes with: the process was stopped, it did not crash. */
bool aw_stop_signal(int32_t sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
}

/* The finding's number for how an exited process ended. */
static void aw_add_end_number(struct aw_finding *f, const struct aw_process *p)
{
	if (p->exit_signal > 0)
		aw_finding_add_integer(f, "signal", p->exit_signal);
	else
		aw_finding_add_integer(f, "status", p->exit_status);
}

/* "was killed by signal 9 (SIGKILL)" or "exited with status 1"; the
 * finding gets the number. */
void aw_how_ended(struct aw_finding *f, const struct aw_process *p, char *buf,
		  size_t size)
{
	if (p->exit_signal > 0)
		snprintf(buf, size, "was killed by signal %d (%s)",
			 p->exit_signal, aw_signal_name(p->exit_signal));
	else
		snprintf(buf, size, "exited with status %d", p->exit_status);
	aw_add_end_number(f, p);
}

/* Seconds between two readings of the trace clock, -1 if unknown. */
double aw_seconds(int64_t from_ns, int64_t to_ns)
{
	if (from_ns < 0 || to_ns < from_ns)
		return -1;
	return (double)(to_ns - from_ns) / 1e9;
}

/* " of L0 (train.py:10)", or "" when the worker's loader is unknown. */
void aw_of_loader(const struct aw_model *model, uint32_t global, char *buf,
		  size_t size)
{
	buf[0] = '\0';
	if (global != AW_NONE)
		snprintf(buf, size, " of %s (%s)",
			 model->loaders_global[global].id,
			 model->loaders_global[global].site);
}

/* "#2 of epoch 0": a worker's fetch ordinal counts its own fetches. */
static void aw_fetch_name(const struct aw_model *model,
			  const struct aw_process *w, char *buf, size_t size)
{
	uint32_t epoch = aw_worker_epoch(model, w, w->last_fetch_loader,
					 w->last_fetch_iteration);
	if (epoch == ACCWATCH_UNKNOWN)
		snprintf(buf, size, "#%" PRIu32, w->last_fetch.ordinal);
	else
		snprintf(buf, size, "#%" PRIu32 " of epoch %" PRIu32,
			 w->last_fetch.ordinal, epoch);
}

/* "indices [5, 9, 13]", or "8 items" for an IterableDataset's batch. */
static void aw_fetch_what(const struct aw_process *w, char *buf, size_t size)
{
	char list[192];
	if (w->last_fetch_items) {
		snprintf(buf, size, "%" PRIu32 " items", w->last_fetch.total);
		return;
	}
	aw_index_head_format(&w->last_fetch, list, sizeof(list));
	snprintf(buf, size, "indices %s", list);
}

/* The numbers every finding about a worker's last fetch carries. */
static void aw_add_fetch_numbers(struct aw_finding *f,
				 const struct aw_process *w)
{
	aw_finding_add_integer(f, "fetch", w->last_fetch.ordinal);
	aw_finding_add_integer(f, "fetch_size", w->last_fetch.total);
	if (w->last_fetch.n)
		aw_finding_add_integer(f, "first_index", w->last_fetch.head[0]);
}

/* A finding about worker w in epoch (ACCWATCH_UNKNOWN: none), with its rank,
 * pid and worker id. */
static struct aw_finding *aw_worker_finding(struct aw_findings *out,
					    const char *id,
					    const struct aw_process *w,
					    uint32_t global, uint32_t epoch)
{
	struct aw_finding *f =
	    aw_findings_add(out, id, AW_SEVERITY_ERROR, global,
			    epoch == ACCWATCH_UNKNOWN ? -1 : (int64_t)epoch);
	if (w->rank >= 0)
		aw_finding_add_rank(f, w->rank);
	aw_finding_add_integer(f, "pid", w->pid);
	aw_finding_add_integer(f, "worker_id", w->worker_id);
	return f;
}

/* --- worker-died ---------------------------------------------------------- */

/* How a worker ended, if that is a death: a signal other than the stop
 * signals, or a non-zero exit status. */
static bool aw_worker_death(const struct aw_process *w)
{
	if (!w->is_worker || !w->exited)
		return false;
	if (w->exit_signal > 0)
		return !aw_stop_signal(w->exit_signal);
	return w->exit_status > 0;
}

static const char *aw_death_fix(const struct aw_process *w)
{
	switch (w->exit_signal) {
	case SIGKILL:
		return "SIGKILL is most often the kernel's out-of-memory "
		       "killer "
		       "(check `dmesg`): lower num_workers or prefetch_factor, "
		       "or the memory each worker holds (a dataset of Python "
		       "objects is copied page by page on access)";
	case SIGBUS:
		return "a SIGBUS in a worker is most often /dev/shm too small "
		       "for the batches it hands over (docker: --shm-size); "
		       "else a crash in native code of the dataset";
	case SIGSEGV:
	case SIGABRT:
	case SIGILL:
	case SIGFPE:
		return "a crash in native code the dataset calls (a decoder, a "
		       "library not fork-safe): reproduce with num_workers=0 "
		       "and the indices of its last fetch";
	default:
		return "the worker exited with an error: look for its "
		       "exception "
		       "in the rank's stderr and reproduce with num_workers=0 "
		       "and the indices of its last fetch";
	}
}

/* Where a dead worker was: inside its last fetch (no end came), between
 * fetches, or unknown (a trace without fetch ends). `state` continues the
 * message; the evidence quotes the fetch. */
static void aw_died_fetch(struct aw_finding *f, const struct aw_model *model,
			  const struct aw_process *w, char *state, size_t size)
{
	char fetch[48], what[224];
	state[0] = '\0';
	if (!w->any_fetch) {
		aw_finding_add_evidence(f, "it fetched nothing that the trace "
					   "saw");
		return;
	}
	aw_fetch_name(model, w, fetch, sizeof(fetch));
	aw_fetch_what(w, what, sizeof(what));
	aw_add_fetch_numbers(f, w);
	if (w->last_fetch_items) {
		aw_finding_add_evidence(
		    f, "the last batch it handed over: %s, %s", fetch, what);
		return;
	}
	if (!aw_model_knows_fetch_ends(model)) {
		snprintf(state, size, ", after starting its fetch %s (%s)",
			 fetch, what);
		aw_finding_add_evidence(f,
					"its last fetch: %s, %s (this trace "
					"does not record whether it ended)",
					fetch, what);
		return;
	}
	aw_finding_add_integer(f, "fetch_open", w->fetch_open);
	if (w->fetch_open) {
		snprintf(state, size, ", in the middle of its fetch %s (%s)",
			 fetch, what);
		aw_finding_add_evidence(
		    f,
		    "its last fetch, %s (%s), was still in progress: one of "
		    "these samples was being read (__getitem__) or collated "
		    "when it died",
		    fetch, what);
		return;
	}
	const char *end = w->last_fetch_ok == 0 ? "raised" : "returned";
	snprintf(state, size, ", between fetches (its last, %s, had %s)", fetch,
		 end);
	aw_finding_add_evidence(f,
				"its last fetch, %s (%s), had %s before it "
				"died",
				fetch, what, end);
}

void aw_check_worker_died(const struct aw_check_input *in,
			  struct aw_findings *out)
{
	const struct aw_model *model = in->model;
	for (size_t i = 0; i < model->n_processes; i++) {
		const struct aw_process *w = &model->processes[i];
		if (!aw_worker_death(w))
			continue;
		uint32_t global = aw_worker_global(model, w);
		uint32_t epoch =
		    w->any_fetch
			? aw_worker_epoch(model, w, w->last_fetch_loader,
					  w->last_fetch_iteration)
			: aw_worker_epoch(model, w, w->worker_loader,
					  w->worker_iteration);
		struct aw_finding *f =
		    aw_worker_finding(out, "worker-died", w, global, epoch);
		char how[64], which[128], state[320], when[32] = "";
		aw_how_ended(f, w, how, sizeof(how));
		aw_of_loader(model, global, which, sizeof(which));
		aw_died_fetch(f, model, w, state, sizeof(state));
		/* The fetch, when there is one, names its epoch. */
		if (epoch != ACCWATCH_UNKNOWN && !w->any_fetch)
			snprintf(when, sizeof(when), " in epoch %" PRIu32,
				 epoch);
		aw_finding_set_message(
		    f,
		    "DataLoader worker %d%s on rank %d (pid %d) %s%s%s: the "
		    "rank's loop got an error or waited for its batches",
		    w->worker_id, which, w->rank, w->pid, how, when, state);
		aw_finding_set_fix(f, "%s", aw_death_fix(w));
	}
}

/* --- worker-stuck --------------------------------------------------------- */

/* A fetch open for less than this when its worker ended is taken as an
 * ordinary fetch cut short, not a hang: at interpreter exit multiprocessing
 * terminates busy workers at once, while the DataLoader itself terminates
 * a worker only after waiting 5 s for it (MP_STATUS_CHECK_INTERVAL). */
#define AW_STUCK_MIN_SECONDS 2.0

/* Seconds the worker's last fetch was open: until its exit, or until the
 * end of the trace; -1 without clock records. */
static double aw_open_seconds(const struct aw_model *model,
			      const struct aw_process *w)
{
	return aw_seconds(w->fetch_start_ns,
			  w->exited ? w->exit_ns : model->clock_ns);
}

/* A worker whose last fetch never ended, and that did not crash (that is
 * worker-died, which says the fetch was open). An exit with status 0
 * counts as stopped: a torch DataLoader worker answers its parent's
 * SIGTERM with _exit(0). In a trace that lost events, a missing end may be
 * one of them: trace-incomplete says so, worker-stuck stays silent. */
static bool aw_worker_stuck(const struct aw_model *model,
			    const struct aw_process *w)
{
	const struct aw_trace_stats *s = &model->stats;
	if (!w->is_worker || !w->any_fetch || !w->fetch_open ||
	    aw_worker_death(w) || !aw_model_knows_fetch_ends(model))
		return false;
	if (s->discarded_events || s->discarded_events_messages ||
	    s->discarded_packets)
		return false;
	double seconds = aw_open_seconds(model, w);
	return seconds < 0 || seconds >= AW_STUCK_MIN_SECONDS;
}

/* How the stuck fetch ended: the worker stopped, or still in it when the
 * trace ended; for how long, when the trace has a clock. */
static void aw_stuck_until(const struct aw_model *model,
			   const struct aw_process *w, struct aw_finding *f,
			   char *buf, size_t size)
{
	double seconds = aw_open_seconds(model, w);
	char took[48] = "", how[128];
	if (seconds >= 0) {
		aw_finding_add_real(f, "seconds", seconds);
		snprintf(took, sizeof(took), " for %.1f s", seconds);
	}
	if (!w->exited) {
		snprintf(buf, size,
			 "%s, and was still in it when the trace ended", took);
		return;
	}
	if (w->exit_signal > 0)
		snprintf(how, sizeof(how), "was stopped by signal %d (%s)",
			 w->exit_signal, aw_signal_name(w->exit_signal));
	else if (w->exit_status == 0)
		snprintf(how, sizeof(how),
			 "exited with status 0 (how a DataLoader worker "
			 "answers its parent's SIGTERM)");
	else
		snprintf(how, sizeof(how), "exited");
	aw_add_end_number(f, w);
	snprintf(buf, size,
		 "%s, until it %s, as the DataLoader stops its workers when "
		 "the main process gives up on them (its timeout= expired, or "
		 "an error) or exits",
		 took, how);
}

void aw_check_worker_stuck(const struct aw_check_input *in,
			   struct aw_findings *out)
{
	const struct aw_model *model = in->model;
	for (size_t i = 0; i < model->n_processes; i++) {
		const struct aw_process *w = &model->processes[i];
		if (!aw_worker_stuck(model, w))
			continue;
		uint32_t global = aw_worker_global(model, w);
		uint32_t epoch = aw_worker_epoch(model, w, w->last_fetch_loader,
						 w->last_fetch_iteration);
		struct aw_finding *f =
		    aw_worker_finding(out, "worker-stuck", w, global, epoch);
		aw_add_fetch_numbers(f, w);
		char which[128], fetch[48], what[224], until[320];
		aw_of_loader(model, global, which, sizeof(which));
		aw_fetch_name(model, w, fetch, sizeof(fetch));
		aw_fetch_what(w, what, sizeof(what));
		aw_stuck_until(model, w, f, until, sizeof(until));
		aw_finding_set_message(
		    f,
		    "DataLoader worker %d%s on rank %d (pid %d) never returned "
		    "from its fetch %s (%s): it was inside the dataset's "
		    "__getitem__ or collate_fn%s",
		    w->worker_id, which, w->rank, w->pid, fetch, what, until);
		aw_finding_add_evidence(
		    f, "the fetch: %s, %" PRIu32 " sample%s, %s", fetch,
		    w->last_fetch.total, w->last_fetch.total == 1 ? "" : "s",
		    what);
		aw_finding_set_fix(
		    f,
		    "read those indices in the main process (num_workers=0, "
		    "dataset[i] for each) to see where __getitem__ blocks "
		    "(`py-spy dump --pid %d` while it hangs): a lock, a "
		    "network or file read without a timeout, a deadlock; "
		    "a lock another thread held at the fork stays locked "
		    "in the worker: start workers with "
		    "multiprocessing_context='forkserver' or 'spawn'",
		    w->pid);
	}
}
