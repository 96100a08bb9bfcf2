/* SPDX-License-Identifier: MIT */
/* The process checks (checks_process.c) on event streams built here, with
 * their edges: fork-threads (program threads against libraries' service
 * threads), fork-cuda, worker-respawn. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include "stream.h"

static const struct s_loader_opts base = S_BASE_LOADER(0);

/* --- forks and workers ------------------------------------------------------
 */

/* A run of s_workers_over_epochs. */
static struct s_run workers_run(uint32_t epochs, int8_t persistent,
				const char *names)
{
	struct s_run r = s_run_of(0, NULL);
	s_workers_over_epochs(r.model, epochs, persistent, names);
	return r;
}

Test(checks_process, fork_threads_names_the_threads_and_shows_the_stack)
{
	struct s_run r = workers_run(1, 1, "python3,python3,aw-heartbeat");
	const struct aw_finding *f = s_finish_only(&r, "fork-threads");
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(s_number(f, "forks"), 2);
	cr_expect_eq(f->loader, 0, "the loader whose workers were forked");
	s_expect_says(f, "aw-heartbeat");
	s_expect_says(f, "train.py:40 main");
	s_expect_says(f, "library frames, down to");
	cr_expect(s_has_rank(f, 0));
	s_done(&r);
}

Test(checks_process, no_fork_threads_for_unnamed_threads_one_thread_or_exec)
{
	/* gloo's threads carry the main thread's name: not listed. */
	struct s_run r = workers_run(1, 1, "python3,python3,python3");
	s_finish_only(&r, NULL);
	s_done(&r);

	r.model = aw_model_create();
	s_ranks(r.model, 1, &base);
	s_fork(r.model, 100, 300, 1, "python3", false);
	/* fork + exec: nothing of the parent runs in the child */
	s_fork(r.model, 100, 301, 4, "python3,aw-heartbeat", false);
	s_exec(r.model, 301);
	s_finish_only(&r, NULL);
	s_done(&r);
}

Test(checks_process, no_fork_threads_for_libraries_service_threads)
{
	/* torch 2.x's TCPStore server and gloo's threads: a plain DDP job with
	 * DataLoader workers, not the finding. */
	struct s_run r =
	    workers_run(1, 1,
			"python3,pt_tcpstore,gloo_tcp_loop,pt_gloo_runloop,"
			"pt_gloo_runloop,jemalloc_bg_thd,python3");
	s_finish_only(&r, NULL);
	s_done(&r);
}

Test(checks_process, no_fork_threads_for_queue_feeders_and_lightning_observer)
{
	/* Workers re-forked each epoch while the last epoch's queues still
	 * feed: multiprocessing's own threads, fork-safe by design. */
	struct s_run r = s_run_of(1, &base);
	s_fork_python(r.model, 100, 300, 3, "python3",
		      "multiprocessing.queues QueueFeederThread (daemon)\n"
		      "multiprocessing.queues QueueFeederThread (daemon)\n"
		      "lightning.fabric.strategies.launchers.subprocess_script "
		      "child-process-observer (daemon)",
		      false);
	s_finish_only(&r, NULL);
	s_done(&r);
}

Test(checks_process, fork_threads_names_python_threads_beside_service_threads)
{
	/* A Python thread has no OS name of its own (< 3.14): the recorder
	 * names it from threading. Service threads are shown, apart. */
	struct s_run r = s_run_of(1, &base);
	s_fork_python(
	    r.model, 100, 300, 7, "python3,pt_tcpstore,gloo_tcp_loop",
	    "__main__ metrics-uploader (daemon)\nlogs.writer log-writer\n"
	    "multiprocessing.queues QueueFeederThread (daemon)\n"
	    "torch.utils.data._utils.pin_memory Thread-3 "
	    "(_pin_memory_loop) (daemon)",
	    false);
	const struct aw_finding *f = s_finish_only(&r, "fork-threads");
	s_expect_says(f, "metrics-uploader (daemon), log-writer");
	cr_expect(!strstr(f->message, "pt_tcpstore"), "%s", f->message);
	cr_expect(s_says(f,
			 "libraries' own (not the finding) pt_tcpstore, "
			 "gloo_tcp_loop, QueueFeederThread (daemon), Thread-3 "
			 "(_pin_memory_loop) (daemon)"),
		  "%s", f->evidence);
	s_done(&r);
}

Test(checks_process, fork_threads_says_a_packages_thread_is_the_packages)
{
	/* tqdm's monitor thread (its code an installed package's: "pkg:")
	 * is a thread at the fork all the same, but not the program's. */
	struct s_run r = s_run_of(1, &base);
	s_fork_python(r.model, 100, 300, 2, "python3",
		      "pkg:tqdm._monitor Thread-1 (daemon)", false);
	const struct aw_finding *f = s_finish_only(&r, "fork-threads");
	s_expect_says(f, "Thread-1 (daemon) of tqdm._monitor");
	cr_expect(s_says(f, "had 2 threads at the fork: packages' Thread-1 "
			    "(daemon) of tqdm._monitor;"),
		  "%s", f->evidence);
	cr_expect(!s_says(f, "the program's"), "%s", f->evidence);
	s_done(&r);
}

Test(checks_process, fork_cuda_is_an_error)
{
	struct s_run r = s_run_of(1, &base);
	s_fork(r.model, 100, 300, 1, "python3", true);
	const struct aw_finding *f = s_finish_only(&r, "fork-cuda");
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	s_expect_says(f, "multiprocessing_context");
	s_done(&r);
}

Test(checks_process, worker_respawn_without_persistent_workers)
{
	struct s_run r = workers_run(3, 0, "python3");
	const struct aw_finding *f = s_finish_only(&r, "worker-respawn");
	cr_expect_eq(s_number(f, "epochs"), 3);
	cr_expect_eq(s_number(f, "workers"), 6);
	s_expect_says(f, "persistent_workers=True");
	s_done(&r);

	/* Persistent workers, forked once; or a single epoch: nothing. */
	r = workers_run(3, 1, "python3");
	s_finish_only(&r, NULL);
	s_done(&r);
	r = workers_run(1, 0, "python3");
	s_finish_only(&r, NULL);
	s_done(&r);
}

/* Rank 0 builds a new DataLoader of num_workers workers every epoch (3)
 * around sampler object 7, persistent_workers as given: each forks its
 * workers (pids 200 + 2e + w) at its one pass. */
static struct s_run loader_per_epoch_workers(int32_t num_workers,
					     int8_t persistent)
{
	struct s_loader_opts o = base;
	o.num_workers = num_workers;
	o.persistent_workers = persistent;
	struct s_run r = s_run_of(0, NULL);
	s_process(r.model, 99, 1, -1, 1, "launcher");
	s_process(r.model, 100, 99, 0, 1, "rank");
	for (uint32_t e = 0; e < 3; e++) {
		s_loader_around(r.model, 100, e, &o, 7);
		s_iter_begin(r.model, 100, e, 0);
		for (int32_t w = 0; w < num_workers; w++) {
			int32_t pid = 200 + 2 * (int32_t)e + w;
			s_fork(r.model, 100, pid, 1, "python3", false);
			s_process(r.model, pid, 100, 0, 1, "worker");
			s_worker(r.model, pid, w, e, 0);
		}
		uint32_t idx[100];
		s_range(idx, 0, 100, 1);
		for (uint32_t b = 0; b < 10; b++)
			s_batch(r.model, 100, e, 0, b, 0, 10, idx + 10 * b, 10);
		s_iter_end(r.model, 100, e, 0, 10, 10, 1);
	}
	return r;
}

Test(checks_process, worker_respawn_when_a_dataloader_is_built_every_epoch)
{
	/* persistent_workers=True does not keep workers of a DataLoader
	 * that is built again: each new one forks its own. */
	struct s_run r = loader_per_epoch_workers(2, 1);
	const struct aw_finding *f = s_finish_only(&r, "worker-respawn");
	cr_expect_eq(s_number(f, "epochs"), 3);
	cr_expect_eq(s_number(f, "workers"), 6);
	cr_expect_eq(s_number(f, "loader_objects"), 3);
	s_expect_says(f, "a new DataLoader was built for every epoch");
	s_expect_says(f, "build the DataLoader once");
	cr_expect(s_has_rank(f, 0));
	s_done(&r);

	r = loader_per_epoch_workers(2, 0);
	s_finish_only(&r, "worker-respawn");
	s_done(&r);

	/* No workers: nothing to fork again. */
	r = loader_per_epoch_workers(0, 0);
	s_finish_only(&r, NULL);
	s_done(&r);
}

/* --- duplicate-rank --------------------------------------------------------
 */

/* Two processes (pids 100, 150) that both say rank 0 of a world of 1 to
 * torch.distributed (their environment too, or, launched_apart, ranks 0
 * and 1 of 2) and read half of a dataset of 100 each; the second starts at
 * start_ns, the first runs 0-1000 ns. */
static struct s_run claim_rank_0(int64_t start_ns, bool launched_apart)
{
	struct s_run r = s_run_of(0, NULL);
	struct aw_model *m = r.model;
	int32_t pids[2] = {100, 150};
	int64_t from[2] = {0, start_ns};
	for (int i = 0; i < 2; i++) {
		if (start_ns >= 0)
			aw_model_set_clock(m, from[i]);
		if (launched_apart)
			s_process(m, pids[i], 1, i, 2, "rank");
		else
			s_process(m, pids[i], 1, 0, 1, "rank");
		s_dist_init(m, pids[i], 0, 1);
		s_loader(m, pids[i], 0, &base);
		s_reads(m, pids[i], 0, 0, (uint32_t)i * 50,
			(uint32_t)i * 50 + 50, 10, true);
		if (start_ns >= 0)
			aw_model_set_clock(m, from[i] + 1000);
		s_exit(m, pids[i], pids[i], 0, -1);
	}
	return r;
}

static struct s_run two_claim_rank_0(int64_t start_ns)
{
	return claim_rank_0(start_ns, false);
}

/* The duplicate-rank finding of the two (the second from 500 ns), which
 * says each of texts (NULL-terminated) in its message, evidence or fix,
 * and no word of accelerate (the program has none). */
static void expect_duplicate_rank(bool launched_apart, const char *const *texts)
{
	struct s_run r = claim_rank_0(500, launched_apart);
	const struct aw_finding *f = s_finish_only(&r, "duplicate-rank");
	cr_assert(f);
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect(s_has_rank(f, 0));
	cr_expect_eq(s_number(f, "processes"), 2);
	for (size_t i = 0; texts[i]; i++)
		cr_expect(s_says(f, texts[i]), "no '%s' in: %s | %s | %s",
			  texts[i], f->message, f->evidence, f->fix);
	cr_expect_not(s_says(f, "accelerate"), "%s", f->fix);
	s_done(&r);
}

Test(checks_process, duplicate_rank_for_processes_of_one_rank_at_once)
{
	expect_duplicate_rank(
	    false, (const char *const[]){
		       "2 processes claimed rank 0 at the same time, each in "
		       "a world of 1",
		       "pid 100 on node0: rank variable 0 of world size 1 "
		       "(RANK); torch.distributed rank 0 of 1",
		       "pid 150", "torchrun --nproc-per-node 2", NULL});
}

Test(checks_process, duplicate_rank_fix_when_the_launcher_told_them_apart)
{
	/* torch.distributed's world is the one named. */
	expect_duplicate_rank(
	    true, (const char *const[]){
		      "each in a world of 1",
		      "pid 150 on node0: rank variable 1 of world size 2 "
		      "(RANK); torch.distributed rank 0 of 1",
		      "the launcher gave them ranks 0-1 of 2",
		      "init_method \"env://\"", NULL});
}

Test(checks_process, no_duplicate_rank_for_a_restart_or_without_a_clock)
{
	/* The second starts after the first ended: a restart, each attempt
	 * judged on its own (each ran its pass to the end over half the
	 * data: missing in each). */
	struct s_run r = two_claim_rank_0(2000);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "duplicate-rank"), 0);
	cr_expect_eq(r.model->n_attempts, 2);
	cr_assert_eq(r.model->n_loaders_global, 2);
	cr_expect_eq(r.model->loaders_global[0].attempt, 0);
	cr_expect_eq(r.model->loaders_global[1].attempt, 1);
	cr_expect_eq(r.model->loaders_global[1].lineage, 0);
	cr_expect_eq(s_count(&r.findings, "missing"), 2);
	s_done(&r);
	/* No trace clock: nothing says they ran together. */
	r = two_claim_rank_0(-1);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "duplicate-rank"), 0);
	s_done(&r);
}
