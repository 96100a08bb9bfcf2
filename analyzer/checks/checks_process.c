/* SPDX-License-Identifier: MIT */
/* The process checks: forks while other threads ran or CUDA was mapped
 * (fork-threads, fork-cuda) and workers forked anew every epoch
 * (worker-respawn). How processes ended is checks_exit.c's. */
#define _GNU_SOURCE /* memmem */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accwatch_events.h"
#include "checks_private.h"
#include "util.h"

/* The user's Python frames shown under a fork finding, innermost ones. */
#define AW_STACK_USER 4
/* Distinct thread names listed. */
#define AW_THREAD_NAMES 8
/* Longest thread name kept (Python names can be long; the kernel's are 15),
 * and longest line of a thread list read (a Python thread's module too). */
#define AW_THREAD_NAME_MAX 40
#define AW_THREAD_LINE_MAX 160

static uint32_t aw_process_by_pid(const struct aw_model *model, uint32_t space,
				  int32_t pid)
{
	return aw_index_map_get(&model->process_index,
				aw_key2(space, (uint32_t)pid));
}

/* --- fork-threads, fork-cuda --------------------------------------------- */

/* Threads that libraries run for themselves, known by the name they give
 * their OS thread, never the user's: PyTorch's own are "pt_*" (pt_tcpstore
 * the TCPStore server, pt_gloo_runloop, pt_autograd_N, pt_dist_engine,
 * pt_workerserver, pt_nccl_*), gloo's transport "gloo_*" (gloo_tcp_loop),
 * the CUDA driver's "cuda-*" (cuda-EvtHandlr: fork-cuda reports such forks),
 * jemalloc's background threads "jemalloc_*" (pyarrow's allocator, so every
 * HF datasets job: jemalloc's own fork handlers keep them safe).
 * LTTng-UST's ("*-ust") are left out by the recorder already. Threads
 * without a name of their own (gloo's in torch 1.x, OpenMP's) inherit the
 * main thread's and are counted apart: nothing says whose they are. */
static const char *const aw_service_thread_prefixes[] = {"pt_", "gloo_",
							 "cuda-", "jemalloc_"};
/* Python threads are known by the module of the code they run: torch's and
 * torchdata's own (the DataLoader's pin-memory thread), multiprocessing's
 * (the queue feeder threads of a DataLoader's queues, which multiprocessing
 * resets in a forked child) and Lightning's (the child-process-observer its
 * DDP launcher runs on rank 0). */
static const char *const aw_service_python_modules[] = {
    "torch.",     "torchdata.",         "multiprocessing.",
    "lightning.", "pytorch_lightning.", "lightning_fabric."};

static bool aw_has_prefix(const char *text, const char *const *prefixes,
			  size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(text, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

#define AW_HAS_PREFIX(text, prefixes)                                          \
	aw_has_prefix(text, prefixes, sizeof(prefixes) / sizeof(prefixes[0]))

/* Distinct names with how many threads bear each. */
struct aw_name_counts {
	char names[AW_THREAD_NAMES][AW_THREAD_NAME_MAX];
	uint32_t counts[AW_THREAD_NAMES];
	size_t n;
};

static void aw_name_counts_add(struct aw_name_counts *c, const char *name,
			       uint32_t count)
{
	size_t i = 0;
	while (i < c->n && strcmp(c->names[i], name) != 0)
		i++;
	if (i == c->n && c->n < AW_THREAD_NAMES)
		snprintf(c->names[c->n++], AW_THREAD_NAME_MAX, "%.*s",
			 AW_THREAD_NAME_MAX - 1, name);
	if (i < c->n)
		c->counts[i] += count;
}

/* The threads of a fork but the forking one: the user's (Python threads
 * of the program's code, and native ones that named themselves with a
 * name no library uses), other packages' Python threads (the recorder's
 * "pkg:" modules: tqdm's monitor), libraries' service threads, and
 * unnamed ones. user and packages are the finding. */
struct aw_thread_names {
	struct aw_name_counts user, packages, service;
	uint32_t foreign, same_as_main;
	char main_name[AW_THREAD_NAME_MAX]; /* what unnamed threads inherit */
};

/* Calls visit(name, t) for each item of list, split at separator. */
static void aw_thread_list_each(const char *list, char separator,
				void (*visit)(const char *, bool,
					      struct aw_thread_names *),
				struct aw_thread_names *t)
{
	bool first = true;
	for (const char *at = list; at && *at;) {
		const char *end = strchr(at, separator);
		size_t len = end ? (size_t)(end - at) : strlen(at);
		char name[AW_THREAD_LINE_MAX];
		snprintf(name, sizeof(name), "%.*s",
			 (int)AW_MIN(len, AW_THREAD_LINE_MAX - 1), at);
		at += len + (end ? 1 : 0);
		visit(name, first, t);
		first = false;
	}
}

static void aw_visit_native(const char *name, bool first,
			    struct aw_thread_names *t)
{
	if (first) { /* the main thread */
		snprintf(t->main_name, sizeof(t->main_name), "%.*s",
			 AW_THREAD_NAME_MAX - 1, name);
		return;
	}
	if (strcmp(name, t->main_name) == 0) {
		t->same_as_main++;
	} else if (AW_HAS_PREFIX(name, aw_service_thread_prefixes)) {
		aw_name_counts_add(&t->service, name, 1);
	} else {
		t->foreign++;
		aw_name_counts_add(&t->user, name, 1);
	}
}

/* "module name": the name counted as the module's service or the user's. */
static void aw_visit_python(const char *line, bool first,
			    struct aw_thread_names *t)
{
	(void)first;
	const char *space = strchr(line, ' ');
	const char *name = space ? space + 1 : line;
	bool package = strncmp(line, "pkg:", 4) == 0;
	const char *at = package ? line + 4 : line;
	char module[AW_THREAD_LINE_MAX];
	snprintf(module, sizeof(module), "%.*s.",
		 (int)(space && space > at ? space - at : 0), at);
	if (AW_HAS_PREFIX(module, aw_service_python_modules)) {
		aw_name_counts_add(&t->service, name, 1);
	} else if (package) {
		char named[2 * AW_THREAD_LINE_MAX + 8];
		snprintf(named, sizeof(named), "%s of %.*s", name,
			 (int)(strlen(module) - 1), module);
		t->foreign++;
		aw_name_counts_add(&t->packages, named, 1);
	} else {
		t->foreign++;
		aw_name_counts_add(&t->user, name, 1);
	}
}

static void aw_thread_names_parse(struct aw_thread_names *t, const char *native,
				  const char *python)
{
	memset(t, 0, sizeof(*t));
	aw_thread_list_each(native, ',', aw_visit_native, t);
	aw_thread_list_each(python, '\n', aw_visit_python, t);
}

static void aw_name_counts_format(const struct aw_name_counts *c,
				  struct aw_text *out)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->counts[i] > 1)
			aw_text_add(out, "%s%s x%u", i ? ", " : "", c->names[i],
				    c->counts[i]);
		else
			aw_text_add(out, "%s%s", i ? ", " : "", c->names[i]);
	}
}

/* Adds from's names to most, each with the most threads one of them saw. */
static void aw_name_counts_most(struct aw_name_counts *most,
				const struct aw_name_counts *from)
{
	for (size_t k = 0; k < from->n; k++) {
		size_t j = 0;
		while (j < most->n &&
		       strcmp(most->names[j], from->names[k]) != 0)
			j++;
		aw_name_counts_add(most, from->names[k], 0);
		if (j < most->n)
			most->counts[j] =
			    AW_MAX(most->counts[j], from->counts[k]);
	}
}

/* Findings of one kind grouped by the loader whose workers were forked. */
struct aw_fork_group {
	uint32_t global; /* AW_NONE: not a DataLoader worker */
	struct aw_finding *finding;
	uint64_t forks;
	uint32_t max_threads;
	const struct aw_fork *example;
	struct aw_name_counts names; /* the user's threads */
};

/* A frame of Python's library or an installed package, not the user's. */
static bool aw_library_frame(const char *line, size_t len)
{
	static const char *const marks[] = {
	    "/dist-packages/", "/site-packages/", "/lib/python3", "<frozen "};
	for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
		size_t n = strlen(marks[m]);
		for (size_t i = 0; i + n <= len; i++)
			if (memcmp(line + i, marks[m], n) == 0)
				return true;
	}
	return false;
}

/* Splits text into its lines (at most max), those holding `leave_out` left
 * out; returns how many. */
static size_t aw_split_lines(const char *text, const char *leave_out,
			     const char **lines, int *lens, size_t max)
{
	size_t n = 0;
	for (const char *at = text; *at && n < max;) {
		const char *end = strchr(at, '\n');
		int len = end ? (int)(end - at) : (int)strlen(at);
		if (!leave_out ||
		    !memmem(at, (size_t)len, leave_out, strlen(leave_out))) {
			lines[n] = at;
			lens[n++] = len;
		}
		at = end ? end + 1 : at + len;
	}
	return n;
}

/* The fork's Python stack: the user's innermost frames, then how deep the
 * library went below them. */
static void aw_show_stack(struct aw_finding *f, const struct aw_model *model,
			  const struct aw_fork *fork)
{
	const struct aw_process *p = &model->processes[fork->process];
	if (!fork->py_stack || !*fork->py_stack)
		return;
	const char *lines[256];
	int lens[256];
	size_t n = aw_split_lines(fork->py_stack, NULL, lines, lens, 256);
	size_t last_user = n;
	for (size_t i = n; i-- > 0;)
		if (!aw_library_frame(lines[i], (size_t)lens[i])) {
			last_user = i;
			break;
		}
	aw_finding_add_evidence(f,
				"Python stack of the fork (rank %d, pid %d, "
				"innermost last):",
				p->rank, p->pid);
	size_t from = last_user == n ? n - 1 : last_user;
	for (size_t i = from >= AW_STACK_USER - 1 ? from - (AW_STACK_USER - 1)
						  : 0;
	     i <= from && i < n; i++)
		aw_finding_add_evidence(f, "  %.*s", lens[i], lines[i]);
	if (from + 1 < n)
		aw_finding_add_evidence(
		    f, "  ... %zu library frames, down to %.*s", n - from - 1,
		    lens[n - 1], lines[n - 1]);
}

/* The fork's native stack (libunwind): the frames nearest the fork, those
 * of accwatch's own interposer left out. */
static void aw_show_native_stack(struct aw_finding *f,
				 const struct aw_fork *fork)
{
	enum { AW_NATIVE_SHOWN = 6 };
	if (!fork->native_stack || !*fork->native_stack)
		return;
	const char *lines[256];
	int lens[256];
	size_t n =
	    aw_split_lines(fork->native_stack, "libaccwatch", lines, lens, 256);
	if (n == 0)
		return;
	size_t from = n > AW_NATIVE_SHOWN ? n - AW_NATIVE_SHOWN : 0;
	aw_finding_add_evidence(f,
				"native stack of the fork (%zu frames, "
				"innermost last):",
				n);
	if (from > 0)
		aw_finding_add_evidence(f, "  ... %zu outer frames", from);
	for (size_t i = from; i < n; i++)
		aw_finding_add_evidence(f, "  %.*s", lens[i], lines[i]);
}

/* What threads one fork had: the user's, the libraries', the unnamed. */
static void aw_fork_threads_evidence(struct aw_finding *f,
				     const struct aw_process *parent,
				     const struct aw_fork *fork,
				     const struct aw_thread_names *names)
{
	struct aw_text user = {0}, packages = {0}, service = {0};
	aw_name_counts_format(&names->user, &user);
	aw_name_counts_format(&names->packages, &packages);
	aw_name_counts_format(&names->service, &service);
	aw_finding_add_evidence(
	    f,
	    "rank %d (pid %d) had %u threads at the fork: %s%s%s%s%s; "
	    "%s%s%s%u unnamed (named like the main thread, the forking one "
	    "included)",
	    parent->rank, parent->pid, fork->threads,
	    user.len ? "the program's " : "", aw_text_str(&user),
	    user.len && packages.len ? "; " : "",
	    packages.len ? "packages' " : "", aw_text_str(&packages),
	    service.len ? "libraries' own (not the finding) " : "",
	    aw_text_str(&service), service.len ? "; " : "",
	    names->same_as_main + 1);
	aw_text_fini(&user);
	aw_text_fini(&packages);
	aw_text_fini(&service);
}

static struct aw_fork_group *aw_fork_group(struct aw_fork_group **groups,
					   size_t *n, size_t *cap,
					   uint32_t global)
{
	for (size_t i = 0; i < *n; i++)
		if ((*groups)[i].global == global)
			return &(*groups)[i];
	AW_GROW(*groups, *cap, *n + 1);
	struct aw_fork_group *g = &(*groups)[(*n)++];
	memset(g, 0, sizeof(*g));
	g->global = global;
	return g;
}

static void aw_workers_of(const struct aw_model *model, uint32_t global,
			  struct aw_text *out)
{
	if (global == AW_NONE)
		aw_text_add(out, "children");
	else
		aw_text_add(out, "DataLoader workers of %s",
			    model->loaders_global[global].id);
}

static void aw_fork_findings(const struct aw_check_input *in, bool cuda,
			     struct aw_findings *out)
{
	const struct aw_model *model = in->model;
	struct aw_fork_group *groups = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < model->n_forks; i++) {
		const struct aw_fork *fork = &model->forks[i];
		const struct aw_process *parent =
		    &model->processes[fork->process];
		uint32_t child =
		    aw_process_by_pid(model, parent->space, fork->child_pid);
		if (child != AW_NONE && model->processes[child].execed)
			continue; /* fork + exec: nothing of the parent runs */
		struct aw_thread_names names;
		aw_thread_names_parse(&names, fork->thread_names,
				      fork->py_threads);
		if (cuda ? !fork->cuda_mapped : names.foreign == 0)
			continue;
		uint32_t global =
		    child != AW_NONE
			? aw_worker_global(model, &model->processes[child])
			: AW_NONE;
		struct aw_fork_group *g =
		    aw_fork_group(&groups, &n, &cap, global);
		if (!g->example)
			g->example = fork;
		g->forks++;
		g->max_threads = AW_MAX(g->max_threads, fork->threads);
		/* Per name, the most threads one fork saw. */
		aw_name_counts_most(&g->names, &names.user);
		aw_name_counts_most(&g->names, &names.packages);
		if (!g->finding) {
			g->finding = aw_findings_add(
			    out, cuda ? "fork-cuda" : "fork-threads",
			    cuda ? AW_SEVERITY_ERROR : AW_SEVERITY_WARNING,
			    global, -1);
			if (!cuda)
				aw_fork_threads_evidence(g->finding, parent,
							 fork, &names);
		}
		if (parent->rank >= 0)
			aw_finding_add_rank(g->finding, parent->rank);
	}
	for (size_t i = 0; i < n; i++) {
		struct aw_fork_group *g = &groups[i];
		struct aw_finding *f = g->finding;
		struct aw_text what = {0}, ranks = {0}, listed = {0};
		aw_workers_of(model, g->global, &what);
		aw_format_ranks(f->ranks, f->n_ranks, &ranks);
		const char *on =
		    f->n_ranks ? aw_text_str(&ranks) : "unranked processes";
		aw_finding_add_integer(f, "forks", (int64_t)g->forks);
		aw_finding_add_integer(f, "max_threads", g->max_threads);
		if (cuda) {
			aw_finding_set_message(
			    f,
			    "%" PRIu64 " fork%s of %s on %s happened after the "
			    "CUDA driver was mapped in the parent: a child "
			    "that touches CUDA fails with \"Cannot "
			    "re-initialize CUDA in forked subprocess\" or "
			    "hangs",
			    g->forks, g->forks == 1 ? "" : "s",
			    aw_text_str(&what), on);
			aw_finding_set_fix(
			    f, "start DataLoader workers with "
			       "multiprocessing_context='spawn' or "
			       "'forkserver' (DataLoader(..., "
			       "multiprocessing_context='forkserver')), or "
			       "create them before CUDA is initialised");
		} else {
			aw_name_counts_format(&g->names, &listed);
			aw_finding_set_message(
			    f,
			    "%" PRIu64 " fork%s of %s on %s happened while "
			    "other threads were running in the parent "
			    "(%s): a lock one of them held stays locked "
			    "forever in the child, which can deadlock",
			    g->forks, g->forks == 1 ? "" : "s",
			    aw_text_str(&what), on, aw_text_str(&listed));
			aw_finding_set_fix(
			    f, "start those threads after the DataLoader "
			       "workers (persistent_workers=True forks them "
			       "once, at the first epoch), or use "
			       "multiprocessing_context='forkserver' (or "
			       "'spawn') so that workers do not inherit them");
		}
		aw_show_stack(f, model, g->example);
		aw_show_native_stack(f, g->example);
		aw_text_fini(&what);
		aw_text_fini(&ranks);
		aw_text_fini(&listed);
	}
	free(groups);
}

void aw_check_forks(const struct aw_check_input *in, struct aw_findings *out)
{
	aw_fork_findings(in, false, out);
	aw_fork_findings(in, true, out);
}

/* --- worker-respawn --------------------------------------------------------
 */

/* The loader objects of one loading stream in a rank's process (those
 * whose stream_head is `head`): how many, their passes, and what they say
 * of their workers. */
struct aw_stream_workers {
	uint32_t objects, passes;
	int32_t num_workers; /* the most any of them asked for */
	bool persistent;     /* every one said persistent_workers=True */
};

static struct aw_stream_workers aw_stream_of(const struct aw_model *model,
					     uint32_t head)
{
	struct aw_stream_workers s = {.num_workers = -1, .persistent = true};
	uint32_t process = model->loaders[head].process;
	for (size_t i = 0; i < model->n_loaders; i++) {
		const struct aw_loader *o = &model->loaders[i];
		if (o->process != process || o->stream_head != head)
			continue;
		s.objects++;
		s.passes += o->n_iterations;
		s.num_workers = AW_MAX(s.num_workers, o->num_workers);
		s.persistent &= o->persistent_workers == 1;
	}
	return s;
}

/* How many epochs the workers of a rank's loading stream (its loader
 * objects in global loader `global`) were started in; *workers: how many
 * there were. */
static uint32_t aw_worker_epochs(const struct aw_model *model, uint32_t process,
				 uint32_t global, int32_t num_workers,
				 uint32_t *workers)
{
	bool only_stream_with_workers = true;
	for (size_t i = 0; i < model->n_loaders; i++) {
		const struct aw_loader *o = &model->loaders[i];
		if (o->process == process && o->global != global &&
		    o->num_workers > 0 && o->n_iterations)
			only_stream_with_workers = false;
	}
	uint32_t epochs[64], n_epochs = 0, unknown = 0;
	*workers = 0;
	for (size_t i = 0; i < model->n_processes; i++) {
		const struct aw_process *w = &model->processes[i];
		if (!w->is_worker || w->owner != process)
			continue;
		uint32_t epoch = ACCWATCH_UNKNOWN;
		if (w->worker_loader == ACCWATCH_UNKNOWN) {
			if (!only_stream_with_workers || !w->started_worker)
				continue;
		} else {
			uint32_t loader = aw_model_find_loader(
			    model, process, w->worker_loader);
			if (loader == AW_NONE ||
			    model->loaders[aw_model_iterated_loader(model,
								    loader)]
				    .global != global)
				continue;
			epoch = aw_worker_epoch(model, w, w->worker_loader,
						w->worker_iteration);
		}
		(*workers)++;
		if (epoch == ACCWATCH_UNKNOWN) {
			unknown++;
			continue;
		}
		bool seen = false;
		for (uint32_t e = 0; e < n_epochs && !seen; e++)
			seen = epochs[e] == epoch;
		if (!seen && n_epochs < 64)
			epochs[n_epochs++] = epoch;
	}
	uint32_t per_epoch = num_workers > 0 ? (uint32_t)num_workers : 1;
	return n_epochs + (unknown + per_epoch - 1) / per_epoch;
}

/* The message and fix, once per global loader, from the first rank's
 * stream: persistent_workers=False, or a new DataLoader every epoch (whose
 * workers start with it, persistent or not). */
static void aw_respawn_explain(struct aw_finding *f,
			       const struct aw_global_loader *g,
			       const struct aw_stream_workers *s,
			       const struct aw_loader *l, uint32_t epochs,
			       uint32_t workers, int32_t rank)
{
	aw_finding_add_integer(f, "epochs", epochs);
	aw_finding_add_integer(f, "workers", workers);
	aw_finding_add_integer(f, "num_workers", s->num_workers);
	if (s->objects > 1) {
		aw_finding_add_integer(f, "loader_objects", s->objects);
		aw_finding_set_message(
		    f,
		    "the DataLoader workers of %s (%s, num_workers=%d) were "
		    "forked anew in each of %u epochs (%u worker processes "
		    "on rank %d): a new DataLoader was built for every epoch "
		    "(%u of them on that rank, around the same sampler or "
		    "dataset), and its workers start with it, so every epoch "
		    "pays their start-up again (fork, copy of the dataset, "
		    "worker_init_fn)",
		    g->id, g->site, s->num_workers, epochs, workers, rank,
		    s->objects);
		aw_finding_set_fix(f, "build the DataLoader once, before the "
				      "epoch loop, with persistent_workers="
				      "True, and iterate that one every epoch "
				      "(set_epoch on its sampler): a "
				      "DataLoader built anew starts new "
				      "workers whatever persistent_workers "
				      "says; when a library builds one on "
				      "every iter(), give it your own "
				      "DataLoader built that way");
		return;
	}
	aw_finding_set_message(
	    f,
	    "the DataLoader workers of %s (%s, num_workers=%d, "
	    "persistent_workers=%s) were forked anew in each of %u epochs (%u "
	    "worker processes on rank %d): every epoch pays their start-up "
	    "again (fork, copy of the dataset, worker_init_fn)",
	    g->id, g->site, l->num_workers,
	    l->persistent_workers == 0 ? "False" : "unknown", epochs, workers,
	    rank);
	aw_finding_set_fix(f, "pass persistent_workers=True to the "
			      "DataLoader: its workers then live across "
			      "epochs");
}

void aw_check_worker_respawn(const struct aw_check_input *in,
			     struct aw_findings *out)
{
	const struct aw_model *model = in->model;
	struct aw_finding **by_global =
	    aw_xcalloc(model->n_loaders_global + 1, sizeof(*by_global));
	for (size_t i = 0; i < model->n_loaders; i++) {
		const struct aw_loader *l = &model->loaders[i];
		const struct aw_process *p = &model->processes[l->process];
		if (p->is_worker || l->stream_head != i ||
		    l->global >= model->n_loaders_global)
			continue;
		/* A loader object kept for every epoch keeps persistent
		 * workers; loader objects built one per epoch cannot. */
		struct aw_stream_workers s = aw_stream_of(model, (uint32_t)i);
		if (s.num_workers <= 0 || s.passes < 2 ||
		    (s.objects == 1 && s.persistent))
			continue;
		uint32_t workers = 0;
		uint32_t epochs = aw_worker_epochs(model, l->process, l->global,
						   s.num_workers, &workers);
		if (epochs < 2)
			continue;
		struct aw_finding *f = by_global[l->global];
		if (!f) {
			f = by_global[l->global] =
			    aw_findings_add(out, "worker-respawn",
					    AW_SEVERITY_WARNING, l->global, -1);
			aw_respawn_explain(f, &model->loaders_global[l->global],
					   &s, l, epochs, workers, p->rank);
		}
		if (f->n_ranks < AW_EVIDENCE_RANKS) {
			if (s.objects > 1)
				aw_finding_add_evidence(
				    f,
				    "rank %d (pid %d): %u worker processes in "
				    "%u epochs, of %u DataLoader objects",
				    p->rank, p->pid, workers, epochs,
				    s.objects);
			else
				aw_finding_add_evidence(
				    f,
				    "rank %d (pid %d): %u worker processes in "
				    "%u epochs",
				    p->rank, p->pid, workers, epochs);
		}
		if (p->rank >= 0)
			aw_finding_add_rank(f, p->rank);
	}
	free(by_global);
}

/* --- duplicate-rank ------------------------------------------------------- */

/* Whether two processes ran at the same time, as far as the trace clock
 * tells (a restart ends before the next one starts). */
static bool aw_ran_together(const struct aw_process *a,
			    const struct aw_process *b)
{
	if (a->first_ns < 0 || b->first_ns < 0)
		return false;
	return a->first_ns <= b->last_ns && b->first_ns <= a->last_ns;
}

/* "RANK=0 WORLD_SIZE=1" or "no RANK" as the environment told it. */
static void aw_env_view(const struct aw_process *p, struct aw_text *out)
{
	if (p->env_rank < 0 && p->world_size < 0) {
		aw_text_add(out, "no rank variable");
		return;
	}
	aw_text_add(out, "rank variable %d", p->env_rank);
	if (p->world_size >= 0)
		aw_text_add(out, " of world size %d", p->world_size);
	if (p->rank_source)
		aw_text_add(out, " (%s)", p->rank_source);
}

static void aw_dist_view(const struct aw_process *p, struct aw_text *out)
{
	if (p->dist_rank < 0)
		aw_text_add(out, "joined no process group");
	else
		aw_text_add(out, "torch.distributed rank %d of %d",
			    p->dist_rank, p->dist_world_size);
}

/* Whether the launcher told the processes apart: distinct rank variables
 * of a world of n each. */
static bool aw_launched_apart(const struct aw_model *model,
			      const uint32_t *members, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct aw_process *p = &model->processes[members[i]];
		if (p->env_rank < 0 || p->world_size != (int32_t)n)
			return false;
		for (size_t k = 0; k < i; k++)
			if (model->processes[members[k]].env_rank ==
			    p->env_rank)
				return false;
	}
	return true;
}

static void aw_duplicate_rank_fix(const struct aw_model *model,
				  const uint32_t *members, size_t n,
				  struct aw_finding *f)
{
	bool accelerate = aw_model_uses_accelerate(model);
	if (aw_launched_apart(model, members, n))
		aw_finding_set_fix(
		    f,
		    "the launcher gave them ranks 0-%zu of %zu: let the "
		    "process group take them from the environment (%s), "
		    "not a rank or world size of the script's own",
		    n - 1, n,
		    accelerate ? "Accelerator() does, unless the backend "
				 "it picks does not span the processes (on "
				 "CPU, MPI without mpirun): pass "
				 "Accelerator(cpu=True) or set the gloo "
				 "backend"
			       : "init_process_group() with init_method "
				 "\"env://\" and no rank= or world_size=");
	else if (accelerate)
		aw_finding_set_fix(f,
				   "start the %zu processes with one launcher "
				   "that gives each its own rank (accelerate "
				   "launch --num_processes %zu) so that they "
				   "join one process group of %zu",
				   n, n, n);
	else
		aw_finding_set_fix(f,
				   "start the %zu processes with one launcher "
				   "that gives each its own rank (torchrun "
				   "--nproc-per-node %zu, or RANK and "
				   "WORLD_SIZE=%zu set per process) so that "
				   "they join one process group of %zu",
				   n, n, n, n);
}

static void aw_duplicate_rank_finding(const struct aw_model *model,
				      int32_t rank, const uint32_t *members,
				      size_t n, struct aw_findings *out)
{
	struct aw_finding *f = aw_findings_add(out, "duplicate-rank",
					       AW_SEVERITY_ERROR, AW_NONE, -1);
	aw_finding_add_rank(f, rank);
	aw_finding_add_integer(f, "processes", (int64_t)n);
	int32_t world = -1;
	for (size_t i = 0; i < n; i++) {
		const struct aw_process *p = &model->processes[members[i]];
		world = AW_MAX(world, aw_process_world(p));
		struct aw_text env = {0}, dist = {0};
		aw_env_view(p, &env);
		aw_dist_view(p, &dist);
		aw_finding_add_evidence(f, "pid %d%s%s: %s; %s", p->pid,
					p->host ? " on " : "",
					p->host ? p->host : "",
					aw_text_str(&env), aw_text_str(&dist));
		aw_text_fini(&env);
		aw_text_fini(&dist);
	}
	aw_finding_set_message(
	    f,
	    "%zu processes claimed rank %d at the same time, each in a world "
	    "of %d: they are %zu separate jobs each training alone, not one "
	    "job of %zu ranks (their reads are added up in rank %d's rows)",
	    n, rank, world, n, n, rank);
	aw_duplicate_rank_fix(model, members, n, f);
}

void aw_check_duplicate_rank(const struct aw_check_input *in,
			     struct aw_findings *out)
{
	const struct aw_model *model = in->model;
	uint32_t *members =
	    aw_xcalloc(model->n_processes + 1, sizeof(*members));
	for (size_t r = 0; r < model->n_ranks; r++) {
		size_t n = 0;
		bool together = false;
		for (size_t i = 0; i < model->n_processes; i++) {
			const struct aw_process *p = &model->processes[i];
			if (p->is_worker || p->rank != model->ranks[r] ||
			    p->rank_inferred || !p->iterations)
				continue;
			for (size_t k = 0; k < n && !together; k++)
				together = aw_ran_together(
				    &model->processes[members[k]], p);
			members[n++] = (uint32_t)i;
		}
		if (n >= 2 && together)
			aw_duplicate_rank_finding(model, model->ranks[r],
						  members, n, out);
	}
	free(members);
}
