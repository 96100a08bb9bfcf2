/* SPDX-License-Identifier: MIT */
/* Command line of accwatch-run: argv in, options or a typed error out.
 * Pure (no I/O, no globals, no getopt state) so unit tests cover every case. */
#ifndef ACCWATCH_RUN_ARGS_H
#define ACCWATCH_RUN_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ACCWATCH_RUN_DEFAULT_SUBBUF_SIZE (UINT64_C(1) << 20)
#define ACCWATCH_RUN_DEFAULT_NUM_SUBBUF UINT64_C(4)
/* The buffers of a burst, taken instead of the defaults when neither size
 * option is given, the buffers are per UID and they fit in
 * 1/ACCWATCH_RUN_BURST_SHM_SHARE of the free /dev/shm. LTTng-UST 2.13 makes
 * a writer that finds its buffer full sleep 100 ms before it retries
 * (RETRY_DELAY_MS, ring_buffer_frontend.c), while the consumer, done in a
 * few ms, then idles: a CPU's buffer must hold what a loop writes in more
 * than that. A loop drawing 20M indices/s of 21 to 27 bits writes 50 to 70
 * MB/s, 5 to 7 MB in 100 ms: 8 x 2 MiB holds over 200 ms of it, where 4 x 1
 * MiB held 60 to 80 ms. */
#define ACCWATCH_RUN_BURST_SUBBUF_SIZE (UINT64_C(2) << 20)
#define ACCWATCH_RUN_BURST_NUM_SUBBUF UINT64_C(8)
#define ACCWATCH_RUN_BURST_SHM_SHARE 8
/* Per buffer (a CPU's stream), beside its sub-buffers: LTTng-UST's ring
 * buffer headers and counters (shm.c, ring_buffer_backend.c), a few pages;
 * the session's metadata channel and the channel object about as much.
 * Measured: 2 CPUs x 4 x 1 MiB used 10320 KiB, 2 x 2 x 64 KiB 464 KiB. */
#define ACCWATCH_RUN_STREAM_PAGES 8
#define ACCWATCH_RUN_SESSION_PAGES 24
/* A sub-buffer holds the largest event the recorder makes (below 40 KiB,
 * see ACCWATCH_STR_MAX): LTTng drops an event larger than one whole. */
#define ACCWATCH_RUN_MIN_SUBBUF_SIZE UINT64_C(65536)
#define ACCWATCH_RUN_MIN_NUM_SUBBUF UINT64_C(2)
/* How long an event may wait for buffer space before its process stops
 * recording (--stall-timeout): a consumer that takes nothing for 10 s is
 * stuck (a stopped daemon, a stalled or full disk) or dead, while a healthy
 * one drains a sub-buffer in milliseconds; 10 s once per process is nothing
 * against a training job, and far below the timeouts of its collectives
 * (minutes), so the other ranks do not give up waiting for it. */
#define ACCWATCH_RUN_DEFAULT_STALL_SECONDS 10u
#define ACCWATCH_RUN_MAX_STALL_SECONDS 3600u

enum accwatch_run_args_status {
	ACCWATCH_RUN_ARGS_OK = 0,         /* run options->command */
	ACCWATCH_RUN_ARGS_HELP,           /* --help: print usage, exit 0 */
	ACCWATCH_RUN_ARGS_VERSION,        /* --version: print version, exit 0 */
	ACCWATCH_RUN_ARGS_UNKNOWN_OPTION, /* culprit: the option */
	ACCWATCH_RUN_ARGS_MISSING_VALUE,  /* culprit: the option needing one */
	ACCWATCH_RUN_ARGS_UNEXPECTED_VALUE, /* culprit: the flag given "=value"
					     */
	ACCWATCH_RUN_ARGS_BAD_SIZE,  /* culprit: the value of --subbuf-size */
	ACCWATCH_RUN_ARGS_BAD_COUNT, /* culprit: the value of --num-subbuf */
	ACCWATCH_RUN_ARGS_BAD_STALL, /* culprit: the value of --stall-timeout */
	ACCWATCH_RUN_ARGS_BAD_UNRECORDABLE, /* culprit: the value of
					       --if-unrecordable */
	ACCWATCH_RUN_ARGS_EMPTY_OUTPUT,     /* -o "" */
	ACCWATCH_RUN_ARGS_BAD_RELAYD,       /* culprit: the value of --relayd */
	ACCWATCH_RUN_ARGS_BAD_RUN_ID,       /* culprit: the value of --run-id */
	ACCWATCH_RUN_ARGS_RELAYD_AND_OUTPUT, /* --relayd with -o */
	ACCWATCH_RUN_ARGS_MISSING_COMMAND,   /* no command after the options */
};

enum accwatch_run_buffers {
	ACCWATCH_RUN_BUFFERS_PER_UID = 0,
	ACCWATCH_RUN_BUFFERS_PER_PID,
};

struct accwatch_run_options {
	const char
	    *output_dir; /* NULL: a dated directory in the working directory */
	bool force;      /* write into a non-empty output directory */
	bool
	    discard; /* drop events when buffers are full instead of blocking */
	bool quiet;  /* no closing message */
	/* --live: findings on stderr while the command runs; --fail-fast:
	 * and the command stopped at the first error. */
	bool live, fail_fast;
	/* --if-unrecordable=run: when recording cannot work (run_preflight.h),
	 * run the command unrecorded instead of refusing to start it. */
	bool unrecordable_run;
	enum accwatch_run_buffers buffers;
	uint64_t subbuf_size; /* bytes, power of two */
	uint64_t num_subbuf;  /* power of two */
	bool sizes_given;     /* --subbuf-size or --num-subbuf */
	/* seconds an event may block; 0: as long as it takes */
	uint32_t stall_seconds;
	/* --relayd HOST[:CTRL_PORT[:DATA_PORT]]: stream the trace to an
	 * lttng-relayd instead of writing it here; NULL: local. */
	const char *relayd;
	/* --run-id ID as given (accwatch_run_args_run_id), NULL: none. */
	const char *run_id;
	char *const *command; /* points into argv; NULL-terminated like argv */
	int command_argc;
};

enum accwatch_run_size_status {
	ACCWATCH_RUN_SIZE_OK = 0,
	ACCWATCH_RUN_SIZE_SYNTAX, /* not a number with an optional k/M/G suffix
				   */
	ACCWATCH_RUN_SIZE_OVERFLOW, /* does not fit in 64 bits */
	ACCWATCH_RUN_SIZE_NOT_POWER_OF_2,
	ACCWATCH_RUN_SIZE_TOO_SMALL,
};

/* What a failed parse was about: the option as written ("-x", "--frob")
 * or the value at fault; empty when there is none (missing command). */
struct accwatch_run_args_error {
	char culprit[128];
	enum accwatch_run_size_status
	    size_status; /* why a size or count was refused */
};

/* Parses argv (argv[0] is the program). On ACCWATCH_RUN_ARGS_OK fills
 * *options; on an error fills *error. */
enum accwatch_run_args_status
accwatch_run_args_parse(int argc, char *const argv[],
			struct accwatch_run_options *options,
			struct accwatch_run_args_error *error);

/* The rendezvous id of a torchrun command (its --rdzv-id or --rdzv_id, with
 * the value apart or after '='), else env_value (torchrun's PET_RDZV_ID);
 * NULL when neither names one ("none", torchrun's default, names none). */
const char *accwatch_run_args_rdzv_id(char *const command[],
				      const char *env_value);

/* The control URL of --relayd's value: net://VALUE, or net6:// for a
 * bracketed IPv6 address. False (url empty) when the value is not
 * HOST[:PORT[:PORT]] or url is too small. */
bool accwatch_run_args_relayd_url(const char *value, char *url, size_t url_len);

/* "512", "256k", "1M", "2G" (binary multiples, either case); power of two,
 * at least min. */
/* Bytes of /dev/shm a session's buffers take: per CPU, num_subbuf + 1
 * sub-buffers (LTTng-UST adds the reader's) and headers. */
int64_t accwatch_run_buffers_bytes(long cpus, uint64_t num_subbuf,
				   uint64_t subbuf_size, long page);

/* Takes the burst's buffers (ACCWATCH_RUN_BURST_*) when options has the
 * defaults, per-UID buffers, and free_bytes (of /dev/shm, -1 unknown) has
 * ACCWATCH_RUN_BURST_SHM_SHARE times their room; returns whether it did. */
bool accwatch_run_buffers_grow(struct accwatch_run_options *options, long cpus,
			       int64_t free_bytes, long page);

enum accwatch_run_size_status
accwatch_run_parse_size(const char *text, uint64_t min, uint64_t *value);

/* One line (no newline) saying what was wrong, for "accwatch-run: <line>". */
void accwatch_run_args_describe(enum accwatch_run_args_status status,
				const struct accwatch_run_args_error *error,
				char *line, size_t line_len);

void accwatch_run_args_usage(FILE *out);

/* What --help says, the man page and the completion are made of. */
struct accwatch_doc;
const struct accwatch_doc *accwatch_run_args_doc(void);

#endif
