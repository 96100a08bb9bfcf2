/* SPDX-License-Identifier: MIT */
/* State of libaccwatch-record.so, the recorder loaded into torch processes
 * only: one struct, shared by its files (bootstrap, emitters, fork hooks). */
#ifndef ACCWATCH_RECORD_H
#define ACCWATCH_RECORD_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "accwatch_capi.h"
#include "accwatch_record_api.h"
#include "accwatch_fingerprint.h"
#include "accwatch_indices.h"

/* How the file names of the bootstrap's parts begin, as Python tracebacks
 * show them: "<accwatch_boot/10_torch.py>". */
#define ACCWATCH_BOOT_PREFIX "<accwatch_boot/"

/* What the fork event reports, gathered by the forking thread just before
 * the real fork and emitted by it in the parent just after. */
struct accwatch_fork_snapshot {
	_Atomic int busy; /* a fork is being recorded by owner */
	pthread_t owner;
	uint32_t threads; /* LTTng's own threads excluded */
	uint8_t cuda_mapped;
	char thread_names[1024];
	char native_stack[2048];
	char py_stack[4096];
	char py_threads[1024];
};

/* The slots of the bootstrap's _Iteration (a list) that the per-batch C
 * path reads and counts, in their order; the bootstrap gets their names as
 * _aw.HOT_SLOTS ("loader iteration ...") and puts its own slots after. */
#define ACCWATCH_HOT_SLOTS(S)                                                  \
	S(LOADER, loader)                                                      \
	S(ITERATION, iteration)                                                \
	S(DRAWN, drawn)                                                        \
	S(YIELDED, yielded)                                                    \
	S(RECORDED, recorded)                                                  \
	S(INDEXED, indexed)

/* What the per-batch methods in C (accwatch_record_hot.c) call. Borrowed
 * from the bootstrap, which keeps them for the process. */
struct accwatch_hot_objects {
	accwatch_pyobject *iters;             /* id(iterator) -> _Iteration */
	accwatch_pyobject *next_index, *next; /* torch's own methods */
	accwatch_pyobject *on_unknown;        /* (iterator, index) */
	accwatch_pyobject *on_unindexed;      /* (rec) */
	accwatch_pyobject *on_stop;           /* (iterator) */
	/* The last iterator looked up in iters, its _Iteration (a reference)
	 * and the slots that do not change; the bootstrap calls
	 * _aw.hot_forget whenever iters changes. */
	accwatch_pyobject *last_iterator, *last_rec;
	uint32_t last_loader, last_iteration;
	int last_recorded, last_indexed;
	accwatch_pyobject *method_type; /* of the method descriptors */
};

struct accwatch_recorder {
	const struct accwatch_capi *api;
	int debug;
	uint32_t run;
	pid_t pid;                  /* cached: refreshed in the fork child */
	accwatch_pyobject *globals; /* the bootstrap's namespace */
	accwatch_pyobject *fork_stack_fn; /* bootstrap's _fork_stack() */
	accwatch_pyobject *fork_quiet_fn; /* bootstrap's _fork_quiet(quiet) */
	accwatch_pyobject *module_fn;     /* bootstrap's _on_module(name) */
	/* The names of the bootstrap's _WATCHED, handed to libaccwatch.so. */
	char watched[ACCWATCH_WATCHED_MAX][128];
	unsigned n_watched;
	accwatch_pyobject *uncaught_fn; /* bootstrap's _on_uncaught(args) */
	/* bootstrap's _item_view(item), for item fingerprints */
	struct accwatch_fingerprint_context fingerprint;
	/* Python stack and threads taken at the "os.fork" audit event (GIL
	 * held); py_threads: "native_id module name" per line. */
	int py_stack_valid;
	pthread_t py_stack_thread;
	char py_stack[4096];
	char py_threads[1024];
	struct accwatch_fork_snapshot fork;
	struct accwatch_indices_buffer indices;
	struct accwatch_hot_objects hot;
	/* The stall bound (accwatch_record_stall.c), 0 none; set once an event
	 * waited that long: nothing is recorded any more. */
	int64_t stall_ns;
	_Atomic int stalled;
	/* This process was taken by the session daemon when it last forked:
	 * its child waits for its own turn (accwatch_record_register.c). */
	int registered_at_fork;
};

extern struct accwatch_recorder accwatch_recorder;

/* The bounded stall (accwatch_record_stall.c). */
void accwatch_stall_init(void);
/* 0: recording stopped, emit nothing; else *start is the clock to give
 * accwatch_stall_end after the event. */
int accwatch_stall_begin(int64_t *start);
/* After an event (what it was about, ACCWATCH_UNKNOWN where not a batch's):
 * stops recording when it waited the whole bound. */
void accwatch_stall_end(int64_t start, const char *event, uint32_t loader,
			uint32_t iteration, uint32_t batch);
/* Writes line (length bytes) as the note "<prefix><pid>" in the trace
 * directory of accwatch-run (ACCWATCH_STALL_DIR), once; errors are ignored
 * (the directory may be gone with the disk). */
void accwatch_record_note(const char *prefix, const char *line, int length);
/* Waits, bounded, for the session daemon to take this process
 * (accwatch_record_register.c). */
void accwatch_register_wait(void);
/* Whether the session daemon has taken this process: its tracepoints on. */
int accwatch_register_done(void);

/* Emits an event within the stall bound: statement is the tracepoint call,
 * event its name, the numbers those of the batch it is about. */
#define ACCWATCH_BOUNDED(event, loader, iteration, batch, statement)           \
	do {                                                                   \
		int64_t accwatch_emit_start_;                                  \
		if (accwatch_stall_begin(&accwatch_emit_start_)) {             \
			statement;                                             \
			accwatch_stall_end(accwatch_emit_start_, event,        \
					   loader, iteration, batch);          \
		}                                                              \
	} while (0)

/* Puts what the bootstrap calls into module (the bootstrap's `_aw`): one
 * function per event without a sequence, called by keyword, named after it
 * (accwatch_catalogue.def); batch, worker_fetch, item_fetch and the
 * helpers; the constants UNKNOWN, BOOT_PREFIX, DEBUG, HOT_SLOTS. -1 with a
 * Python error set when that failed. */
int accwatch_record_module_fill(accwatch_pyobject *module);

/* The batch event of one draw (indices: the Python batch of indices). */
void accwatch_record_batch(uint32_t loader, uint32_t iteration, uint32_t batch,
			   accwatch_pyobject *indices);

/* _aw.hot_methods and _aw.instancemethod (accwatch_record_hot.c): the
 * per-batch methods in C. */
accwatch_pyobject *accwatch_py_hot_methods(accwatch_pyobject *self,
					   accwatch_pyobject *const *args,
					   ssize_t nargs);
accwatch_pyobject *accwatch_py_instancemethod(accwatch_pyobject *self,
					      accwatch_pyobject *const *args,
					      ssize_t nargs);
/* _aw.hot_descriptors: the same methods as method descriptors (no binding
 * per call), or None; _aw.hot_forget: the bootstrap's iters changed. */
accwatch_pyobject *accwatch_py_hot_descriptors(accwatch_pyobject *self,
					       accwatch_pyobject *const *args,
					       ssize_t nargs);
accwatch_pyobject *accwatch_py_hot_forget(accwatch_pyobject *self,
					  accwatch_pyobject *const *args,
					  ssize_t nargs);

/* function(argument), its result dropped and any error cleared; takes the
 * reference to argument (NULL: nothing is called). GIL held. */
void accwatch_record_call_one(accwatch_pyobject *function,
			      accwatch_pyobject *argument);

/* Returns None (a new reference). */
accwatch_pyobject *accwatch_record_none(void);

void accwatch_record_on_fork_audit(void);
void accwatch_record_on_module(const char *name);
void accwatch_record_before_fork(sigset_t *sigset);
void accwatch_record_after_fork_parent(sigset_t *sigset, pid_t child);
void accwatch_record_after_fork_child(sigset_t *sigset);
void accwatch_record_on_child_exit(pid_t child, int status);
void accwatch_record_on_exit_self(int status);
void accwatch_record_on_exec(const char *path, pid_t child);
void accwatch_record_on_uncaught(accwatch_pyobject *args);
int accwatch_record_is_self(void);
int accwatch_record_safe_close(int fd, int (*close_cb)(int fd));
/* Registers the exit() handler that emits this process's own `exit`. */
void accwatch_record_exit_init(void);

#endif
