/* SPDX-License-Identifier: MIT */
/* How processes ended (checks_exit.c), on event streams built here with
 * their edges: worker-died, worker-stuck, rank-died. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include "stream.h"

static const struct s_loader_opts base = S_BASE_LOADER(0);

/* --- worker-died
 * ----------------------------------------------------------------
 */

Test(checks_exit, worker_died_names_rank_worker_pid_and_last_fetch)
{
	struct s_run r = s_run_of(0, NULL);
	s_workers_over_epochs(r.model, 1, 1, "python3");
	uint32_t idx[8];
	s_range(idx, 161, 8, 4);
	s_worker_fetch(r.model, 201, 1, 0, 0, 2, idx, 8);
	s_exit(r.model, 100, 201, -1, SIGKILL); /* the parent saw it */
	s_exit(r.model, 200, 200, 0, -1);       /* worker 0 ended well */
	const struct aw_finding *f = s_finish_only(&r, "worker-died");
	cr_expect_eq(s_count(&r.findings, "worker-died"), 1);
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect(s_has_rank(f, 0));
	cr_expect_eq(s_number(f, "pid"), 201);
	cr_expect_eq(s_number(f, "worker_id"), 1);
	cr_expect_eq(s_number(f, "signal"), SIGKILL);
	cr_expect_eq(s_number(f, "fetch"), 2);
	cr_expect_eq(s_number(f, "first_index"), 161);
	s_expect_says(f, "worker 1");
	s_expect_says(f, "SIGKILL");
	s_expect_says(f, "fetch #2 of epoch 0 (indices [161, 165, 169, 173, "
			 "177, 181, 185, 189])");
	/* A trace without fetch ends cannot say whether it was in it. */
	s_expect_says(f, "does not record whether it ended");
	s_expect_says(f, "out-of-memory");
	s_done(&r);
}

Test(checks_exit, worker_died_by_status_but_not_by_sigterm)
{
	struct s_run r = s_run_of(0, NULL);
	s_workers_over_epochs(r.model, 1, 1, "python3");
	s_exit(r.model, 200, 200, 1, -1);
	s_exit(r.model, 100, 201, -1, SIGTERM); /* the DataLoader's shutdown */
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "worker-died"), 1);
	const struct aw_finding *f = s_get(&r, "worker-died");
	cr_expect_eq(s_number(f, "pid"), 200);
	cr_expect_eq(s_number(f, "status"), 1);
	s_done(&r);
}

/* --- worker-stuck ------------------------------------------------------------
 */

/* Rank 0's workers (pids 200, 201, one epoch, persistent): worker 0 fetches
 * 0..3 and ends; worker 1's fetch #1 of [17, 19, 21, 23] starts at 1.0 s
 * and, if `end`, ends. */
static void worker_fetches(struct aw_model *m, bool end)
{
	s_workers_over_epochs(m, 1, 1, "python3");
	uint32_t first[4] = {0, 1, 2, 3}, stuck[4] = {17, 19, 21, 23};
	s_clock(m, 0.5);
	s_worker_fetch(m, 200, 0, 0, 0, 0, first, 4);
	s_worker_fetch_end(m, 200, 0, 0, 0, 0, true);
	s_worker_fetch(m, 201, 1, 0, 0, 0, first, 4);
	s_worker_fetch_end(m, 201, 1, 0, 0, 0, true);
	s_clock(m, 1.0);
	s_worker_fetch(m, 201, 1, 0, 0, 1, stuck, 4);
	if (end)
		s_worker_fetch_end(m, 201, 1, 0, 0, 1, true);
	s_clock(m, 9.5);
}

/* A run of worker_fetches. */
static struct s_run fetches_run(bool end)
{
	struct s_run r = s_run_of(0, NULL);
	worker_fetches(r.model, end);
	return r;
}

Test(checks_exit, worker_stuck_names_the_fetch_its_indices_and_how_long)
{
	/* DataLoader(timeout=...) expired; the shutdown SIGTERMed worker 1. */
	struct s_run r = fetches_run(false);
	s_exit(r.model, 100, 200, 0, -1);
	s_exit(r.model, 100, 201, -1, SIGTERM);
	const struct aw_finding *f = s_finish_only(&r, "worker-stuck");
	cr_expect_eq(s_count(&r.findings, "worker-stuck"), 1);
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect_eq(f->loader, 0);
	cr_expect_eq(f->epoch, 0);
	cr_expect(s_has_rank(f, 0) && f->n_ranks == 1);
	cr_expect_eq(s_number(f, "pid"), 201);
	cr_expect_eq(s_number(f, "worker_id"), 1);
	cr_expect_eq(s_number(f, "fetch"), 1);
	cr_expect_eq(s_number(f, "fetch_size"), 4);
	cr_expect_eq(s_number(f, "first_index"), 17);
	cr_expect_eq(s_number(f, "signal"), SIGTERM);
	s_expect_says(f, "worker 1 of L0 (train.py:10) on rank 0 (pid 201)");
	s_expect_says(f, "fetch #1 of epoch 0 (indices [17, 19, 21, 23])");
	s_expect_says(f, "for 8.5 s");
	s_expect_says(f, "SIGTERM");
	s_expect_says(f, "num_workers=0");
	s_expect_says(f, "py-spy dump --pid 201");
	s_done(&r);
}

Test(checks_exit, worker_stuck_when_it_answered_the_sigterm_with_exit_0)
{
	/* torch's workers _exit(0) on their parent's SIGTERM: the worker's
	 * own exit event says status 0. */
	struct s_run r = fetches_run(false);
	s_exit(r.model, 201, 201, 0, -1);
	const struct aw_finding *f = s_finish_only(&r, "worker-stuck");
	cr_expect_eq(s_number(f, "status"), 0);
	s_expect_says(f, "for 8.5 s, until it exited with status 0");
	s_done(&r);
}

Test(checks_exit, worker_stuck_when_the_trace_ended_inside_the_fetch)
{
	struct s_run r = fetches_run(false);
	const struct aw_finding *f = s_finish_only(&r, "worker-stuck");
	s_expect_says(f, "still in it when the trace ended");
	s_expect_says(f, "for 8.5 s");
	s_done(&r);

	/* Without clock records: no duration, the rest the same. */
	r = fetches_run(false);
	r.model->clock_ns = -1;
	r.model->processes[3].fetch_start_ns = -1;
	s_finish(&r);
	f = s_get(&r, "worker-stuck");
	cr_expect(!s_says(f, " s, "), "%s", f->message);
	s_expect_says(f, "[17, 19, 21, 23]");
	s_done(&r);
}

Test(checks_exit, no_worker_stuck_when_the_fetch_ended)
{
	/* The fetch ended, then the shutdown SIGTERMed the idle worker. */
	struct s_run r = fetches_run(true);
	s_exit(r.model, 100, 201, -1, SIGTERM);
	s_finish_only(&r, NULL);
	s_done(&r);

	/* Terminated 0.5 s into an ordinary fetch (at interpreter exit):
	 * too short for a hang. */
	r = fetches_run(false);
	r.model->clock_ns = 1500000000;
	s_exit(r.model, 100, 201, -1, SIGTERM);
	s_finish_only(&r, NULL);
	s_done(&r);

	/* Events were lost: the end may be one of them. */
	r = fetches_run(false);
	r.model->stats.discarded_events = 3;
	s_finish_only(&r, "trace-incomplete");
	s_done(&r);

	/* A recorder without worker_fetch_end: every fetch looks open. */
	r.model = aw_model_create();
	s_workers_over_epochs(r.model, 1, 1, "python3");
	uint32_t idx[4] = {17, 19, 21, 23};
	s_worker_fetch(r.model, 201, 1, 0, 0, 1, idx, 4);
	s_exit(r.model, 100, 201, -1, SIGTERM);
	s_finish_only(&r, NULL);
	s_done(&r);
}

Test(checks_exit, worker_stuck_on_its_first_fetch_when_the_trace_declares_ends)
{
	/* Every worker hangs on its first fetch (a fork deadlock): no end was
	 * recorded, but the metadata says the recorder had the event. */
	struct s_run r = s_run_of(0, NULL);
	s_workers_over_epochs(r.model, 1, 1, "python3");
	r.model->stats.declared_kinds = 1u << AW_EVENT_WORKER_FETCH_END;
	uint32_t idx[2] = {0, 1};
	s_worker_fetch(r.model, 200, 0, 0, 0, 0, idx, 2);
	s_worker_fetch(r.model, 201, 1, 0, 0, 0, idx, 2);
	s_finish_only(&r, "worker-stuck");
	cr_expect_eq(s_count(&r.findings, "worker-stuck"), 2);
	s_done(&r);
}

Test(checks_exit, a_crashed_worker_is_worker_died_only_and_says_it_was_fetching)
{
	struct s_run r = fetches_run(false);
	s_exit(r.model, 100, 201, -1, SIGSEGV);
	const struct aw_finding *f = s_finish_only(&r, "worker-died");
	cr_expect_eq(s_count(&r.findings, "worker-stuck"), 0);
	cr_expect_eq(s_number(f, "fetch_open"), 1);
	s_expect_says(f, "in the middle of its fetch #1 of epoch 0 (indices "
			 "[17, 19, 21, 23])");
	s_expect_says(f, "was still in progress");
	s_done(&r);

	/* Died between fetches: said so, with how the last one ended. */
	r = fetches_run(true);
	s_exit(r.model, 100, 201, -1, SIGKILL);
	f = s_finish_only(&r, "worker-died");
	cr_expect_eq(s_number(f, "fetch_open"), 0);
	s_expect_says(f, "between fetches (its last, #1 of epoch 0, had "
			 "returned)");
	s_done(&r);
}

/* --- rank-died ---------------------------------------------------------------
 */

/* Two ranks (N = 100, B = 10): rank 0 reads its 50 to the end, rank 1
 * draws 3 batches of 50.. and neither ends nor exits (yet). */
static void rank_cut_short(struct aw_model *m)
{
	s_ranks(m, 2, &base);
	s_rank_reads(m, 0, 0, 0, 50, 10);
	s_rank_reads_cut(m, 1, 0, 50, 80, 10);
}

Test(checks_exit, rank_died_names_the_rank_signal_epoch_and_last_batch)
{
	/* The launcher (torch imported, so traced) reaped rank 1, killed by
	 * SIGKILL mid-epoch, then stopped rank 2 with SIGTERM. */
	struct s_run r = s_run_of(3, &base);
	s_rank_reads(r.model, 0, 0, 0, 30, 10);
	s_rank_reads_cut(r.model, 1, 0, 50, 80, 10);
	s_rank_reads_cut(r.model, 2, 0, 30, 50, 10);
	s_exit(r.model, 99, 101, -1, SIGKILL);
	s_exit(r.model, 99, 102, -1, SIGTERM);
	const struct aw_finding *f = s_finish_only(&r, "rank-died");
	cr_expect_eq(s_count(&r.findings, "rank-died"), 1,
		     "rank 2 was stopped because rank 1 died");
	cr_expect_eq(s_count(&r.findings, "trace-incomplete"), 0);
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect(s_has_rank(f, 1) && f->n_ranks == 1);
	cr_expect_eq(f->loader, 0);
	cr_expect_eq(f->epoch, 0);
	cr_expect_eq(s_number(f, "pid"), 101);
	cr_expect_eq(s_number(f, "signal"), SIGKILL);
	cr_expect_eq(s_number(f, "batch"), 2);
	cr_expect_eq(s_number(f, "batches"), 3);
	cr_expect_eq(s_number(f, "first_index"), 70);
	s_expect_says(f, "rank 1 (pid 101) was killed by signal 9 (SIGKILL) "
			 "in epoch 0 of L0 (train.py:10)");
	s_expect_says(f, "the last #2 with indices [70, 71, 72, 73, 74, 75, "
			 "76, 77, ...] (10 indices)");
	s_expect_says(f, "rank 2 (pid 102) was stopped by SIGTERM too, in "
			 "epoch 0 of L0 (train.py:10) after 2 batches");
	s_expect_says(f, "out-of-memory");
	s_done(&r);
}

Test(checks_exit, rank_died_by_sigterm_alone_or_by_status)
{
	struct s_run r = s_run_of(0, NULL);
	rank_cut_short(r.model);
	s_exit(r.model, 99, 101, -1, SIGTERM);
	const struct aw_finding *f = s_finish_only(&r, "rank-died");
	cr_expect(s_has_rank(f, 1));
	s_expect_says(f, "stopped from outside");
	s_done(&r);

	/* Rank 0 raised outside its loop (its pass had ended); the launcher
	 * then stopped ranks 1 and 2 mid-epoch: one finding for both. */
	r.model = aw_model_create();
	s_ranks(r.model, 3, &base);
	s_rank_reads(r.model, 0, 0, 0, 30, 10);
	s_rank_reads_cut(r.model, 1, 0, 30, 50, 10);
	s_rank_reads_cut(r.model, 2, 0, 30, 50, 10);
	s_exception(r.model, 100, "ValueError", "loss is nan",
		    "/src/train.py:40");
	s_exit(r.model, 99, 100, 1, -1);
	s_exit(r.model, 99, 101, -1, SIGTERM);
	s_exit(r.model, 99, 102, -1, SIGTERM);
	f = s_finish_only(&r, "rank-died");
	cr_expect_eq(s_count(&r.findings, "rank-died"), 1);
	cr_expect(s_has_rank(f, 1) && s_has_rank(f, 2) && !s_has_rank(f, 0));
	s_expect_says(f, "rank 0 (pid 100) exited with status 1 outside any "
			 "pass over a loader (it raised ValueError: loss "
			 "is nan): its error comes first");
	s_expect_says(f, "rank 2 (pid 102) was stopped by SIGTERM too");
	s_done(&r);

	r.model = aw_model_create();
	rank_cut_short(r.model);
	s_exit(r.model, 101, 101, 3, -1); /* its own _exit(3) */
	f = s_finish_only(&r, "rank-died");
	cr_expect_eq(s_number(f, "status"), 3);
	s_expect_says(f, "exited with status 3");
	s_done(&r);
}

Test(checks_exit, ranks_stopped_by_ctrl_c_are_one_finding)
{
	/* SIGINT raised KeyboardInterrupt in both ranks inside their loops,
	 * and Python then ended them by SIGINT: stopped, not two crashes. */
	struct s_run r = s_run_of(2, &base);
	s_rank_reads_cut(r.model, 0, 0, 0, 30, 10);
	s_rank_reads_cut(r.model, 1, 0, 50, 80, 10);
	for (int32_t pid = 100; pid < 102; pid++) {
		s_exception(r.model, pid, "KeyboardInterrupt", "", "");
		s_exit(r.model, 99, pid, -1, SIGINT);
	}
	const struct aw_finding *f = s_finish_only(&r, "rank-died");
	cr_expect_eq(s_count(&r.findings, "rank-died"), 1);
	cr_expect(s_has_rank(f, 0) && s_has_rank(f, 1));
	cr_expect_eq(f->severity, AW_SEVERITY_INFO,
		     "every rank stopped, none failed: the job was stopped");
	s_expect_says(f, "raised KeyboardInterrupt");
	s_expect_says(f, "stopped from outside");
	s_done(&r);
}

Test(checks_exit, a_job_stopped_whole_is_an_info_one_failure_an_error)
{
	/* A scheduler's SIGTERM to both ranks mid-epoch. */
	struct s_run r = s_run_of(2, &base);
	s_rank_reads_cut(r.model, 0, 0, 0, 30, 10);
	s_rank_reads_cut(r.model, 1, 0, 50, 80, 10);
	s_exit(r.model, 99, 100, -1, SIGTERM);
	s_exit(r.model, 99, 101, -1, SIGTERM);
	const struct aw_finding *f = s_finish_only(&r, "rank-died");
	cr_expect_eq(f->severity, AW_SEVERITY_INFO);
	s_expect_says(f, "every rank ended by a stop signal (SIGTERM");
	s_done(&r);

	/* Rank 0 killed by SIGKILL (the OOM killer), then rank 1 stopped by
	 * the launcher: rank 0 failed on its own. */
	r = s_run_of(2, &base);
	s_rank_reads_cut(r.model, 0, 0, 0, 30, 10);
	s_rank_reads_cut(r.model, 1, 0, 50, 80, 10);
	s_exit(r.model, 99, 100, -1, SIGKILL);
	s_exit(r.model, 99, 101, -1, SIGTERM);
	f = s_finish_only(&r, "rank-died");
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	s_done(&r);
}

/* Two ranks (N = 100, B = 10) that each read their 50 to the end. */
static struct s_run both_read_all(void)
{
	struct s_run r = s_run_of(2, &base);
	s_rank_reads(r.model, 0, 0, 0, 50, 10);
	s_rank_reads(r.model, 1, 0, 50, 100, 10);
	return r;
}

Test(checks_exit, no_rank_died_after_its_epochs)
{
	/* Killed after its loop ended: not a data-loading death, and the
	 * report says so. */
	struct s_run r = both_read_all();
	s_exit(r.model, 99, 101, -1, SIGKILL);
	s_finish_only(&r, NULL);
	const struct aw_finding *f = s_get(&r, "rank-ended-after-data");
	cr_assert(f);
	cr_expect_eq(f->severity, AW_SEVERITY_INFO);
	cr_expect(s_has_rank(f, 1) && f->n_ranks == 1);
	cr_expect_eq(s_number(f, "signal"), SIGKILL);
	s_expect_says(f, "rank 1 (pid 101) was killed by signal 9 (SIGKILL) "
			 "after every pass it began had ended (its last: "
			 "epoch 0 of L0 (train.py:10), 5 batches, to its "
			 "end): what it read is complete, this is not a "
			 "data-loading problem");
	s_done(&r);
}

Test(checks_exit, an_abort_after_the_loops_and_the_ranks_stopped_after_it)
{
	/* Rank 1 aborted at exit (gloo's race), the launcher then stopped
	 * rank 0, also past its loop: one info naming both, no error. */
	struct s_run r = both_read_all();
	s_exit(r.model, 99, 101, -1, SIGABRT);
	s_exit(r.model, 99, 100, -1, SIGTERM);
	s_finish_only(&r, NULL);
	cr_expect_eq(s_count(&r.findings, "rank-ended-after-data"), 1);
	const struct aw_finding *f = s_get(&r, "rank-ended-after-data");
	cr_assert(f);
	cr_expect(s_has_rank(f, 0) && s_has_rank(f, 1));
	s_expect_says(f, "(SIGABRT) after every pass it began had ended");
	s_expect_says(f, "rank 0 (pid 100) was stopped by SIGTERM after its "
			 "passes ended too");
	s_expect_says(f, "gloo");
	s_done(&r);

	/* Stopped alone (a scheduler's SIGTERM once training was done). */
	r = both_read_all();
	s_exit(r.model, 99, 100, -1, SIGTERM);
	s_exit(r.model, 99, 101, -1, SIGTERM);
	s_finish_only(&r, NULL);
	cr_expect_eq(s_count(&r.findings, "rank-ended-after-data"), 1);
	f = s_get(&r, "rank-ended-after-data");
	cr_expect(s_has_rank(f, 0) && s_has_rank(f, 1));
	s_expect_says(f, "stopped from outside");
	s_done(&r);

	/* A rank that ended cleanly is no finding. */
	r = both_read_all();
	s_exit(r.model, 99, 101, 0, -1);
	s_finish_only(&r, NULL);
	cr_expect_eq(s_count(&r.findings, "rank-ended-after-data"), 0);
	s_done(&r);
}

Test(checks_exit, no_after_data_info_beside_a_rank_died)
{
	/* Rank 0 raised after its loop; ranks 1 and 2 were stopped inside
	 * theirs: rank-died tells rank 0's error first, no info besides. */
	struct s_run r = s_run_of(3, &base);
	s_rank_reads(r.model, 0, 0, 0, 30, 10);
	s_rank_reads_cut(r.model, 1, 0, 30, 50, 10);
	s_rank_reads_cut(r.model, 2, 0, 30, 50, 10);
	s_exception(r.model, 100, "ValueError", "loss is nan",
		    "/src/train.py:40");
	s_exit(r.model, 99, 100, 1, -1);
	s_exit(r.model, 99, 101, -1, SIGTERM);
	s_exit(r.model, 99, 102, -1, SIGTERM);
	s_finish_only(&r, "rank-died");
	cr_expect_eq(s_count(&r.findings, "rank-ended-after-data"), 0);
	s_done(&r);
}

Test(checks_exit, rank_died_by_its_own_exit_0_inside_the_loop)
{
	/* os._exit(0) mid-epoch, while rank 0 ran its epoch to the end: a
	 * clean status, but the epoch is cut short all the same. */
	struct s_run r = s_run_of(0, NULL);
	rank_cut_short(r.model);
	s_exit(r.model, 101, 101, 0, -1);
	const struct aw_finding *f = s_finish_only(&r, "rank-died");
	cr_expect(s_has_rank(f, 1) && f->n_ranks == 1);
	cr_expect_eq(s_number(f, "status"), 0);
	cr_expect_eq(s_number(f, "batches"), 3);
	cr_expect_eq(s_number(f, "peer_rank"), 0);
	cr_expect_eq(s_number(f, "peer_batches"), 5);
	s_expect_says(f, "rank 1 (pid 101) exited with status 0 in epoch 0 "
			 "of L0 (train.py:10) after drawing 3 batches, the "
			 "last #2 with indices [70, ");
	cr_expect(s_says(f,
			 "while rank 0 went further (5 batches, to the end of "
			 "the epoch)"),
		  "%s", f->message);
	cr_expect(!s_says(f, "raised"), "%s", f->message);
	s_expect_says(f, "rank 0 (pid 100) went further in this epoch: 5 "
			 "batches, to its end");
	s_expect_says(f, "os._exit()");
	s_done(&r);
}

/* Rank 1 (pid 101) begins epoch 0 at index `begin`, its loop gets `got`
 * batches of 10 and a batch #got more is drawn, whose collate_fn raises
 * `UnreadableSample` (the exception comes before iter_end when
 * `end_after`: the traceback kept the iterator alive) and the rank exits
 * with status 1. */
static void rank_raises_in_collate(struct aw_model *m, uint32_t begin,
				   uint32_t got, bool end_after)
{
	uint32_t idx[10];
	s_iter_begin(m, 101, 0, 0);
	for (uint32_t b = 0; b <= got; b++) {
		s_range(idx, begin + 10 * b, 10, 1);
		s_batch(m, 101, 0, 0, b, 0, 10, idx, 10);
	}
	if (!end_after)
		s_iter_end(m, 101, 0, 0, got + 1, got, false);
	s_exception(m, 101, "data.UnreadableSample",
		    "sample 70 cannot be decoded", "/src/data.py:12");
	if (end_after)
		s_iter_end(m, 101, 0, 0, got + 1, got, false);
	s_exit(m, 101, 101, 1, -1);
}

Test(checks_exit, rank_died_by_an_exception_says_what_it_raised)
{
	for (int end_after = 0; end_after < 2; end_after++) {
		struct s_run r = s_run_of(2, &base);
		s_rank_reads(r.model, 0, 0, 0, 50, 10);
		rank_raises_in_collate(r.model, 50, 2, end_after);
		const struct aw_finding *f = s_finish_only(&r, "rank-died");
		cr_expect_eq(s_count(&r.findings, "rank-died"), 1);
		cr_expect(s_has_rank(f, 1) && f->n_ranks == 1);
		cr_expect_eq(f->epoch, 0);
		cr_expect_eq(s_number(f, "status"), 1);
		cr_expect_eq(s_number(f, "batches"), 2);
		cr_expect_eq(s_number(f, "batch"), 2);
		cr_expect_eq(s_number(f, "first_index"), 70);
		cr_expect(s_says(f,
				 "rank 1 (pid 101) exited with status 1 in "
				 "epoch 0 of L0 (train.py:10) after its loop "
				 "got 2 batches (the next, #2 with indices "
				 "[70, 71, 72, 73, 74, 75, 76, 77, ...] (10 "
				 "indices), was drawn and never handed to "
				 "it: its fetch or collate_fn did not "
				 "return)"),
			  "%s", f->message);
		s_expect_says(f, "; it raised data.UnreadableSample: sample "
				 "70 cannot be decoded");
		cr_expect(s_says(f,
				 "it raised data.UnreadableSample: sample 70 "
				 "cannot be decoded at /src/data.py:12"),
			  "%s", f->evidence);
		s_expect_says(f, "traceback");
		s_done(&r);
	}
}

Test(checks_exit, rank_died_inside_its_pass_needs_no_peer)
{
	/* One rank alone: its exception came while its pass was open. */
	struct s_run r = s_run_of(0, NULL);
	s_process(r.model, 99, 1, -1, 1, "launcher");
	s_process(r.model, 101, 99, 1, 2, "rank");
	s_loader(r.model, 101, 0, &base);
	rank_raises_in_collate(r.model, 50, 2, true);
	const struct aw_finding *f = s_finish_only(&r, "rank-died");
	s_expect_says(f, "its epoch is cut short; it raised");
	s_done(&r);

	/* With the pass ended before the exception and no one to compare
	 * with, nothing says the loop was cut short. */
	r = s_run_of(0, NULL);
	s_process(r.model, 99, 1, -1, 1, "launcher");
	s_process(r.model, 101, 99, 1, 2, "rank");
	s_loader(r.model, 101, 0, &base);
	rank_raises_in_collate(r.model, 50, 2, false);
	s_finish_only(&r, NULL);
	s_done(&r);
}

Test(checks_exit, no_rank_died_when_every_rank_stopped_at_the_same_batch)
{
	/* max_steps = 3 everywhere: each loop left early at batch 3, then
	 * rank 1 raised in its checkpoint code and rank 0 exited cleanly. */
	static const struct s_epoch three = {
	    .batch_size = 10, .end = true, .abandoned = true};
	struct s_run r = s_run_of(2, &base);
	s_rank_reads_as(r.model, 0, 0, 0, 30, &three);
	s_rank_reads_as(r.model, 1, 0, 50, 80, &three);
	s_exception(r.model, 101, "OSError", "disk full", "/src/ckpt.py:3");
	s_exit(r.model, 101, 101, 1, -1);
	s_exit(r.model, 100, 100, 0, -1);
	s_finish_only(&r, NULL);
	s_done(&r);

	/* Both ranks os._exit(0) at their third batch, inside the loop. */
	r = s_run_of(2, &base);
	s_rank_reads_cut(r.model, 0, 0, 0, 30, 10);
	s_rank_reads_cut(r.model, 1, 0, 50, 80, 10);
	s_exit(r.model, 100, 100, 0, -1);
	s_exit(r.model, 101, 101, 0, -1);
	s_finish_only(&r, NULL);
	s_done(&r);
}

/* Rank 0 draws its 5 batches 0.1 s apart from `start` seconds and runs to
 * the end; rank 1 leaves its loop after 2 batches (a break) at 0.1 s and
 * exits with status 0 at `exit_at` seconds (events in the order of time,
 * as the reader gives them). */
static struct s_run rank_left_early(double start, double exit_at)
{
	struct s_run r = s_run_of(2, &base);
	uint32_t idx[10];
	bool exited = false;
	s_clock(r.model, 0.0);
	s_iter_begin(r.model, 101, 0, 0);
	for (uint32_t b = 0; b < 2; b++) {
		s_range(idx, 50 + 10 * b, 10, 1);
		s_batch(r.model, 101, 0, 0, b, 0, 10, idx, 10);
	}
	s_clock(r.model, 0.1);
	s_iter_end(r.model, 101, 0, 0, 2, 2, false);
	s_iter_begin(r.model, 100, 0, 0);
	for (uint32_t b = 0; b < 5; b++) {
		double at = start + 0.1 * b;
		if (!exited && exit_at < at) {
			s_clock(r.model, exit_at);
			s_exit(r.model, 101, 101, 0, -1);
			exited = true;
		}
		s_clock(r.model, at);
		s_range(idx, 10 * b, 10, 1);
		s_batch(r.model, 100, 0, 0, b, 0, 10, idx, 10);
	}
	s_iter_end(r.model, 100, 0, 0, 5, 5, true);
	if (!exited) {
		s_clock(r.model, exit_at);
		s_exit(r.model, 101, 101, 0, -1);
	}
	return r;
}

Test(checks_exit, a_rank_that_left_its_loop_died_if_it_exited_while_peers_read)
{
	/* Rank 1 exited at 1.0 s; rank 0 drew batches until 2.4 s. */
	struct s_run r = rank_left_early(2.0, 1.0);
	const struct aw_finding *f = s_finish_only(&r, "rank-died");
	cr_expect(s_has_rank(f, 1));
	cr_expect_eq(s_number(f, "batches"), 2);
	s_expect_says(f, "after its loop got 2 batches, the last #1 with "
			 "indices [60, ");
	s_expect_says(f, "it exited 1.400 s before rank 0 drew its last "
			 "batch of this epoch");
	s_done(&r);

	/* Rank 0 was done by 0.9 s: rank 1 outlived the epoch. */
	r = rank_left_early(0.5, 1.0);
	s_finish_only(&r, NULL);
	s_done(&r);

	/* Without clock records, the order is not known: nothing said. */
	r = rank_left_early(2.0, 1.0);
	r.model->processes[2].exit_ns = -1;
	cr_assert_eq(r.model->processes[2].pid, 101);
	s_finish_only(&r, NULL);
	s_done(&r);
}

Test(checks_exit, a_rank_that_dies_before_its_first_batch)
{
	/* Its pass began, its exception came before any batch was drawn
	 * (a worker_init_fn, the sampler's __iter__): rank-died, 0 batches. */
	struct s_run r = s_run_of(2, &base);
	s_rank_reads(r.model, 0, 0, 0, 50, 10);
	s_iter_begin(r.model, 101, 0, 0);
	s_exception(r.model, 101, "RuntimeError", "no shared memory", "");
	s_exit(r.model, 101, 101, 1, -1);
	const struct aw_finding *f = s_finish_only(&r, "rank-died");
	cr_expect_eq(s_number(f, "batches"), 0);
	s_expect_says(f, "in epoch 0 of L0 (train.py:10) before its first "
			 "batch, while rank 0 went further");
	s_expect_says(f, "it raised RuntimeError: no shared memory");
	s_expect_says(f, "(the uncaught exception that ended it)");
	s_done(&r);

	/* It raised before any pass began (model setup): no pass of its own
	 * was cut short, rank-died says nothing of it. */
	r = s_run_of(2, &base);
	s_rank_reads(r.model, 0, 0, 0, 50, 10);
	s_exception(r.model, 101, "RuntimeError", "CUDA out of memory", "");
	s_exit(r.model, 101, 101, 1, -1);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "rank-died"), 0);
	s_done(&r);
}
