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
	cr_expect(s_says(f, "aw-heartbeat"), "%s", f->message);
	cr_expect(s_says(f, "train.py:40 main"), "%s", f->evidence);
	cr_expect(s_says(f, "library frames, down to"), "%s", f->evidence);
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
	cr_expect(s_says(f, "metrics-uploader (daemon), log-writer"), "%s",
		  f->message);
	cr_expect(!strstr(f->message, "pt_tcpstore"), "%s", f->message);
	cr_expect(s_says(f,
			 "libraries' own (not the finding) pt_tcpstore, "
			 "gloo_tcp_loop, QueueFeederThread (daemon), Thread-3 "
			 "(_pin_memory_loop) (daemon)"),
		  "%s", f->evidence);
	s_done(&r);
}

Test(checks_process, fork_cuda_is_an_error)
{
	struct s_run r = s_run_of(1, &base);
	s_fork(r.model, 100, 300, 1, "python3", true);
	const struct aw_finding *f = s_finish_only(&r, "fork-cuda");
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect(s_says(f, "multiprocessing_context"), "%s", f->fix);
	s_done(&r);
}

Test(checks_process, worker_respawn_without_persistent_workers)
{
	struct s_run r = workers_run(3, 0, "python3");
	const struct aw_finding *f = s_finish_only(&r, "worker-respawn");
	cr_expect_eq(s_number(f, "epochs"), 3);
	cr_expect_eq(s_number(f, "workers"), 6);
	cr_expect(s_says(f, "persistent_workers=True"), "%s", f->fix);
	s_done(&r);

	/* Persistent workers, forked once; or a single epoch: nothing. */
	r = workers_run(3, 1, "python3");
	s_finish_only(&r, NULL);
	s_done(&r);
	r = workers_run(1, 0, "python3");
	s_finish_only(&r, NULL);
	s_done(&r);
}
