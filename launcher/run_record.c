/* SPDX-License-Identifier: MIT */
/* The sequence of one run and its single cleanup path: whatever happens to the
 * command, a session that was created is stopped and destroyed. */
#define _GNU_SOURCE
#include "run_record.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <lttng/lttng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "accwatch_common.h"
#include "accwatch_events.h"
#include "run_child.h"
#include "run_daemon.h"
#include "run_env.h"
#include "run_guard.h"
#include "run_live.h"
#include "run_log.h"
#include "run_output.h"
#include "run_preflight.h"
#include "run_preload.h"
#include "run_session.h"
#include "run_signals.h"
#include "run_summary.h"

#ifndef ACCWATCH_RUN_LIBDIR_REL
#define ACCWATCH_RUN_LIBDIR_REL "../lib"
#endif

/* Alternatives to the dated default name when it is taken (same second). */
#define ACCWATCH_RUN_DEFAULT_NAME_TRIES 10

extern char **environ;

static bool accwatch_run_record_random(uint32_t *value)
{
	ssize_t got;

	do {
		got = getrandom(value, sizeof(*value), 0);
	} while (got < 0 && errno == EINTR);
	return got == (ssize_t)sizeof(*value);
}

/* libaccwatch-relayd.so, without which --live does not start: its relay
 * daemon would take any local user's connection. */
static bool accwatch_run_record_find_peers_lib(const char *preload,
					       char path[PATH_MAX], char *error,
					       size_t error_size)
{
	char exe[PATH_MAX] = "";

	accwatch_run_preload_self_exe(exe, sizeof(exe));
	if (!accwatch_run_preload_sibling(preload, exe, ACCWATCH_RUN_LIBDIR_REL,
					  ACCWATCH_RUN_RELAYD_LIB, path)) {
		snprintf(error, error_size,
			 "cannot find %s beside %s, which keeps other users "
			 "off the relay daemon",
			 ACCWATCH_RUN_RELAYD_LIB, preload);
		return false;
	}
	if (strpbrk(path, " :")) {
		snprintf(error, error_size,
			 "%s has a space or ':' in its path, which LD_PRELOAD "
			 "cannot carry",
			 path);
		return false;
	}
	return true;
}

static bool accwatch_run_record_find_preload(char *path, size_t path_len)
{
	struct accwatch_run_preload_search search;
	enum accwatch_run_preload_status status;
	const char *env_value = getenv(ACCWATCH_RUN_PRELOAD_ENV);
	char exe[PATH_MAX] = "";
	char tried[sizeof(search.tried) + 16];

	if (!(env_value && env_value[0]) &&
	    !accwatch_run_preload_self_exe(exe, sizeof(exe))) {
		accwatch_run_log(
		    "cannot read /proc/self/exe to find libaccwatch.so; set %s "
		    "to its path",
		    ACCWATCH_RUN_PRELOAD_ENV);
		return false;
	}
	status = accwatch_run_preload_find(env_value, exe,
					   ACCWATCH_RUN_LIBDIR_REL, &search);
	accwatch_run_preload_describe_tried(&search, tried, sizeof(tried));
	switch (status) {
	case ACCWATCH_RUN_PRELOAD_FOUND:
		snprintf(path, path_len, "%s", search.path);
		accwatch_run_log_debug("preloading %s", path);
		return true;
	case ACCWATCH_RUN_PRELOAD_NOT_FOUND:
		if (env_value && env_value[0])
			accwatch_run_log("%s=%s is not a readable file; point "
					 "it to libaccwatch.so "
					 "or unset it",
					 ACCWATCH_RUN_PRELOAD_ENV, env_value);
		else
			accwatch_run_log(
			    "cannot find %s (tried %s); build or install it "
			    "next "
			    "to accwatch-run, or set %s to its path",
			    ACCWATCH_RUN_PRELOAD_NAME, tried,
			    ACCWATCH_RUN_PRELOAD_ENV);
		return false;
	case ACCWATCH_RUN_PRELOAD_UNUSABLE_PATH:
		accwatch_run_log(
		    "%s has a space or ':' in its path, which LD_PRELOAD "
		    "cannot "
		    "carry; install it elsewhere or set %s to a copy",
		    search.path, ACCWATCH_RUN_PRELOAD_ENV);
		return false;
	}
	return false;
}

/* Another user could swap the trace directory (or one on its way) for a
 * link while the session starts: the trace would go where they chose, the
 * daemon overwriting files there. Says which directory, whose, and what to
 * do. */
static void accwatch_run_record_unsafe(const char *dir,
				       const struct accwatch_run_output *output)
{
	const char *found = output->unsafe_path;
	long owner = (long)output->owner, you = (long)geteuid();
	unsigned mode = (unsigned)output->mode;

	switch (output->unsafe_reason) {
	case ACCWATCH_RUN_OUTPUT_UNSAFE_OWNER:
		accwatch_run_log(
		    "refusing output directory %s: %s on its way belongs to "
		    "uid %ld (mode %04o), neither you (uid %ld) nor root, who "
		    "could replace the trace directory with a link to files "
		    "of yours or theirs; choose a directory below ones only "
		    "you and root can change, e.g. in your home",
		    dir, found, owner, mode, you);
		break;
	case ACCWATCH_RUN_OUTPUT_UNSAFE_WRITABLE:
		accwatch_run_log(
		    "refusing output directory %s: %s on its way (uid %ld, "
		    "mode %04o) is writable by other users and not sticky, so "
		    "any of them could replace the trace directory with a link "
		    "to files of yours or theirs; choose a directory below "
		    "ones only you and root can change, or remove their write "
		    "access (chmod go-w %s)",
		    dir, found, owner, mode, found);
		break;
	case ACCWATCH_RUN_OUTPUT_UNSAFE_ENTRY:
		accwatch_run_log(
		    "refusing output directory %s: %s, in a directory shared "
		    "with other users, was made by uid %ld (mode %04o), not by "
		    "you (uid %ld): its owner decides where it leads; choose "
		    "another name with -o",
		    dir, found, owner, mode, you);
		break;
	case ACCWATCH_RUN_OUTPUT_UNSAFE_TARGET:
		accwatch_run_log(
		    "refusing output directory %s: it is writable by other "
		    "users (mode %04o), who could put links into it for the "
		    "session daemon to follow; run 'chmod go-w %s' or choose "
		    "another with -o",
		    found, mode, found);
		break;
	}
}

static void
accwatch_run_record_output_error(enum accwatch_run_output_status status,
				 const char *dir,
				 const struct accwatch_run_output *output)
{
	switch (status) {
	case ACCWATCH_RUN_OUTPUT_OK:
		break;
	case ACCWATCH_RUN_OUTPUT_NOT_EMPTY:
		accwatch_run_log("output directory %s is not empty; choose "
				 "another with -o, or "
				 "pass --force to write into it anyway",
				 dir);
		break;
	case ACCWATCH_RUN_OUTPUT_NOT_DIRECTORY:
		accwatch_run_log("%s exists and is not a directory; choose "
				 "another output with -o",
				 dir);
		break;
	case ACCWATCH_RUN_OUTPUT_CREATE_FAILED:
		accwatch_run_log("cannot create output directory %s: %s; "
				 "choose another with -o",
				 dir, strerror(output->error));
		break;
	case ACCWATCH_RUN_OUTPUT_READ_FAILED:
		accwatch_run_log("cannot read output directory %s: %s; choose "
				 "another with -o",
				 dir, strerror(output->error));
		break;
	case ACCWATCH_RUN_OUTPUT_TOO_LONG:
		accwatch_run_log("output directory name is too long: %s", dir);
		break;
	case ACCWATCH_RUN_OUTPUT_NOT_OWNED:
		accwatch_run_log("output directory %s belongs to another user "
				 "(uid %ld), not to you (uid %ld): a trace "
				 "holds your processes' command lines; choose "
				 "a directory of your own with -o",
				 dir, (long)output->owner, (long)geteuid());
		break;
	case ACCWATCH_RUN_OUTPUT_UNSAFE:
		accwatch_run_record_unsafe(dir, output);
		break;
	}
}

/* -o DIR as given, or the dated default (with -2, -3... if that one is taken).
 */
static bool
accwatch_run_record_prepare_output(const struct accwatch_run_options *options,
				   struct accwatch_run_output *output)
{
	enum accwatch_run_output_status status;
	char name[96], base[64];

	if (options->output_dir) {
		status = accwatch_run_output_prepare(options->output_dir,
						     options->force, output);
		accwatch_run_record_output_error(status, options->output_dir,
						 output);
		return status == ACCWATCH_RUN_OUTPUT_OK;
	}
	accwatch_run_output_default_name(time(NULL), base, sizeof(base));
	snprintf(name, sizeof(name), "%s", base);
	for (int attempt = 2;; attempt++) {
		status =
		    accwatch_run_output_prepare(name, options->force, output);
		if ((status != ACCWATCH_RUN_OUTPUT_NOT_EMPTY &&
		     status != ACCWATCH_RUN_OUTPUT_NOT_DIRECTORY) ||
		    attempt > ACCWATCH_RUN_DEFAULT_NAME_TRIES)
			break;
		snprintf(name, sizeof(name), "%s-%d", base, attempt);
	}
	accwatch_run_record_output_error(status, name, output);
	return status == ACCWATCH_RUN_OUTPUT_OK;
}

static bool accwatch_run_record_daemon(bool quiet)
{
	char detail[512];

	switch (accwatch_run_daemon_ensure(ACCWATCH_RUN_DAEMON_TIMEOUT_MS,
					   detail, sizeof(detail))) {
	case ACCWATCH_RUN_DAEMON_ALIVE:
		return true;
	case ACCWATCH_RUN_DAEMON_STARTED:
		if (!quiet)
			accwatch_run_log("no lttng-sessiond was running; "
					 "started one (it keeps "
					 "running for later sessions)");
		return true;
	case ACCWATCH_RUN_DAEMON_QUERY_FAILED:
		accwatch_run_log("cannot reach lttng-sessiond: %s; is "
				 "lttng-tools installed?",
				 detail);
		return false;
	case ACCWATCH_RUN_DAEMON_SPAWN_FAILED:
		accwatch_run_log("cannot start lttng-sessiond: %s; is "
				 "lttng-tools installed and "
				 "lttng-sessiond on PATH?",
				 detail);
		return false;
	case ACCWATCH_RUN_DAEMON_EXITED:
		accwatch_run_log("cannot start lttng-sessiond: %s; run "
				 "'lttng-sessiond' by hand "
				 "to see why",
				 detail);
		return false;
	case ACCWATCH_RUN_DAEMON_TIMEOUT:
		accwatch_run_log("started lttng-sessiond, but it does not "
				 "answer (%s); check "
				 "'lttng list' and the daemon's logs",
				 detail);
		return false;
	}
	return false;
}

static bool
accwatch_run_record_session(struct accwatch_run_session *session,
			    const struct accwatch_run_session_config *config)
{
	enum accwatch_run_session_status status =
	    accwatch_run_session_create(session, config);

	switch (status) {
	case ACCWATCH_RUN_SESSION_OK:
		break;
	case ACCWATCH_RUN_SESSION_CREATE_FAILED:
		if (config->relayd_url)
			accwatch_run_log(
			    "cannot create LTTng session %s streaming to %s: "
			    "%s; check that lttng-relayd runs there and its "
			    "control and data ports are reachable from here",
			    config->name, config->relayd_url,
			    accwatch_run_session_strerror(session));
		else
			accwatch_run_log(
			    "cannot create LTTng session %s "
			    "writing to %s: %s; check that "
			    "lttng-sessiond can write there",
			    config->name, config->output_path,
			    accwatch_run_session_strerror(session));
		return false;
	case ACCWATCH_RUN_SESSION_CHANNEL_FAILED:
		if (config->relayd_url &&
		    session->lttng_error == LTTNG_ERR_RELAYD_CONNECT_FAIL) {
			accwatch_run_log(
			    "cannot create the user-space channel: %s at %s; "
			    "check that it runs there, that its control and "
			    "data ports are reachable from here, and that it "
			    "takes this user's connections",
			    accwatch_run_session_strerror(session),
			    config->relayd_url);
			return false;
		}
		accwatch_run_log(
		    "cannot create the user-space channel (%" PRIu64
		    " sub-buffers of %" PRIu64 " bytes): %s; try other "
		    "--subbuf-size/--num-subbuf values",
		    config->num_subbuf, config->subbuf_size,
		    accwatch_run_session_strerror(session));
		return false;
	case ACCWATCH_RUN_SESSION_EVENT_FAILED:
		accwatch_run_log("cannot enable the %s events: %s; is "
				 "lttng-sessiond from lttng-tools "
				 "2.13 or later?",
				 ACCWATCH_RUN_EVENT_PATTERN,
				 accwatch_run_session_strerror(session));
		return false;
	default:
		accwatch_run_log(
		    "cannot set up the LTTng session: out of memory");
		return false;
	}
	if (accwatch_run_session_start(session) != ACCWATCH_RUN_SESSION_OK) {
		accwatch_run_log("cannot start tracing in session %s: %s",
				 session->name,
				 accwatch_run_session_strerror(session));
		return false;
	}
	return true;
}

static int
accwatch_run_record_child_exit(char *const command[],
			       const struct accwatch_run_child_result *result)
{
	switch (result->status) {
	case ACCWATCH_RUN_CHILD_EXITED:
		return result->exit_status;
	case ACCWATCH_RUN_CHILD_SIGNALED:
		return ACCWATCH_RUN_EXIT_SIGNAL_BASE + result->signal;
	case ACCWATCH_RUN_CHILD_INTERRUPTED:
		accwatch_run_log("interrupted by signal %d before '%s' "
				 "started; nothing recorded",
				 result->signal, command[0]);
		return ACCWATCH_RUN_EXIT_SIGNAL_BASE + result->signal;
	case ACCWATCH_RUN_CHILD_EXEC_FAILED:
		if (result->exec_errno == ENOENT && !strchr(command[0], '/'))
			accwatch_run_log("cannot run '%s': command not found",
					 command[0]);
		else
			accwatch_run_log("cannot run '%s': %s", command[0],
					 strerror(result->exec_errno));
		return result->exec_errno == ENOENT
			   ? ACCWATCH_RUN_EXIT_NOT_FOUND
			   : ACCWATCH_RUN_EXIT_CANNOT_EXECUTE;
	case ACCWATCH_RUN_CHILD_FORK_FAILED:
		accwatch_run_log("cannot start '%s': fork: %s", command[0],
				 strerror(result->exec_errno));
		return ACCWATCH_RUN_EXIT_FAILURE;
	}
	return ACCWATCH_RUN_EXIT_FAILURE;
}

/* How long the session daemon may take to stop and destroy the session
 * once the command ended (it waits for the consumer to write out the
 * buffers: well under a second when it is healthy), when the stall is
 * bounded. */
#define ACCWATCH_RUN_TEARDOWN_SECONDS 30u

/* What the teardown helper tells accwatch-run. */
struct accwatch_run_teardown {
	bool stopped, destroyed;
	bool daemon_gone; /* no session daemon answered */
	uint64_t discarded;
	char stop_error[160], destroy_error[160];
};

/* Stop (waits for the data) and destroy: in the helper process. */
static void
accwatch_run_record_teardown_now(struct accwatch_run_session *session,
				 struct accwatch_run_teardown *out)
{
	memset(out, 0, sizeof(*out));
	out->stopped = accwatch_run_session_stop(session, &out->discarded) ==
		       ACCWATCH_RUN_SESSION_OK;
	if (!out->stopped)
		snprintf(out->stop_error, sizeof(out->stop_error), "%s",
			 accwatch_run_session_strerror(session));
	out->daemon_gone = accwatch_run_session_daemon_gone(session);
	out->destroyed =
	    accwatch_run_session_destroy(session) == ACCWATCH_RUN_SESSION_OK;
	if (!out->destroyed)
		snprintf(out->destroy_error, sizeof(out->destroy_error), "%s",
			 accwatch_run_session_strerror(session));
	out->daemon_gone |= accwatch_run_session_daemon_gone(session);
}

/* Runs the teardown in a helper process and waits for it at most
 * wait_seconds (0: as long as it takes): a session daemon whose consumer is
 * stopped (a stalled disk) never answers, and accwatch-run must still end
 * with the command. False when the helper did not finish in time. */
static bool
accwatch_run_record_teardown_bounded(struct accwatch_run_session *session,
				     unsigned wait_seconds,
				     struct accwatch_run_teardown *out)
{
	int fds[2];
	pid_t helper;
	ssize_t got = 0;
	struct timespec deadline;

	if (wait_seconds == 0 || pipe(fds) != 0)
		goto inline_teardown;
	helper = fork();
	if (helper < 0) {
		close(fds[0]);
		close(fds[1]);
		goto inline_teardown;
	}
	if (helper == 0) {
		struct accwatch_run_teardown result;

		close(fds[0]);
		accwatch_run_record_teardown_now(session, &result);
		if (write(fds[1], &result, sizeof(result)) < 0)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += wait_seconds;
	for (;;) {
		struct timespec now;
		struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
		long left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (deadline.tv_sec - now.tv_sec) * 1000 +
		       (deadline.tv_nsec - now.tv_nsec) / 1000000;
		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)left) > 0) {
			got = read(fds[0], out, sizeof(*out));
			break;
		}
	}
	close(fds[0]);
	if (got != (ssize_t)sizeof(*out))
		kill(helper, SIGKILL);
	while (waitpid(helper, NULL, 0) < 0 && errno == EINTR)
		;
	accwatch_run_session_forget(session); /* the helper's now */
	if (got == (ssize_t)sizeof(*out)) {
		session->started = !out->stopped;
		session->created = !out->destroyed;
		return true;
	}
	return false;
inline_teardown:
	accwatch_run_record_teardown_now(session, out);
	return true;
}

/* Stop and destroy, bounded when the stall is. A failure here breaks the
 * trace but not the command: its status is returned in every case, and the
 * warning says what is wrong with the trace. */
static int accwatch_run_record_teardown(struct accwatch_run_session *session,
					int exit_code, unsigned wait_seconds,
					uint64_t *discarded)
{
	struct accwatch_run_teardown result;

	*discarded = 0;
	if (!session->created)
		return exit_code;
	if (!accwatch_run_record_teardown_bounded(session, wait_seconds,
						  &result)) {
		accwatch_run_log(
		    "the session daemon did not answer within %u s (its "
		    "consumer is stopped or stuck on its disk): session %s is "
		    "left behind and its trace may be incomplete; the next "
		    "accwatch-run removes the session",
		    wait_seconds, session->name);
		return exit_code;
	}
	*discarded = result.discarded;
	if (result.daemon_gone) {
		accwatch_run_log(
		    "the session daemon is gone (killed, or it crashed) and "
		    "session %s with it: what its consumer had not written of "
		    "the trace is lost",
		    session->name);
		return exit_code;
	}
	if (!result.stopped)
		accwatch_run_log(
		    "cannot stop session %s: %s; the trace may be incomplete",
		    session->name, result.stop_error);
	if (!result.destroyed)
		accwatch_run_log("cannot destroy session %s: %s; remove it "
				 "with 'lttng destroy %s'",
				 session->name, result.destroy_error,
				 session->name);
	return exit_code;
}

/* The guardian and the session it keeps, for the command's start. */
struct accwatch_run_guarded {
	struct accwatch_run_guard *guard;
	const char *session;
	const pid_t *relayd; /* --live's, -1 none */
};

static void accwatch_run_record_guarded(pid_t command, void *context)
{
	struct accwatch_run_guarded *guarded = context;
	accwatch_run_guard_watch(guarded->guard, guarded->session, command,
				 *guarded->relayd);
}

static void accwatch_run_record_reaped(const char *name, const char *path)
{
	accwatch_run_log("destroyed session %s, left by an accwatch-run that "
			 "was killed before it could; its trace is in %s",
			 name, path);
}

/* --if-unrecordable=run: the command as it is, no preload, no session; the
 * output directory (when it can be made) keeps the reason for
 * accwatch-report. */
static int
accwatch_run_record_unrecorded(const struct accwatch_run_options *options,
			       const char *why)
{
	struct accwatch_run_output output = {0};
	struct accwatch_run_child_result child;
	bool has_output;
	int exit_code;

	accwatch_run_log("%s; running '%s' unrecorded (--if-unrecordable=run)",
			 why, options->command[0]);
	has_output = !options->relayd &&
		     accwatch_run_record_prepare_output(options, &output);
	if (has_output)
		accwatch_run_preflight_note(output.path, why);
	accwatch_run_child_run(options->command, environ, NULL, NULL, &child);
	exit_code = accwatch_run_record_child_exit(options->command, &child);
	if (child.status == ACCWATCH_RUN_CHILD_EXITED ||
	    child.status == ACCWATCH_RUN_CHILD_SIGNALED)
		accwatch_run_log("nothing was recorded%s%s: %s",
				 has_output ? " in " : "",
				 has_output ? output.path : "", why);
	return exit_code;
}

/* The run id: --run-id, else with --relayd the command's rendezvous id
 * (torchrun's --rdzv-id or PET_RDZV_ID: every node's accwatch-run sees the
 * same), else random. */
static bool
accwatch_run_record_run_id(const struct accwatch_run_options *options,
			   uint32_t *run_id)
{
	const char *named = options->run_id;

	if (!named && options->relayd)
		named = accwatch_run_args_rdzv_id(options->command,
						  getenv("PET_RDZV_ID"));
	if (named && accwatch_run_id_of_word(named, run_id) && *run_id) {
		accwatch_run_log_debug("run id %" PRIu32 " from '%s'", *run_id,
				       named);
		return true;
	}
	*run_id = 0;
	while (*run_id == 0)
		if (!accwatch_run_record_random(run_id))
			return false;
	return true;
}

/* Where a streamed trace went, and how to read it on the collector. */
static void
accwatch_run_record_relayd_summary(const struct accwatch_run_options *options,
				   const char *session, uint32_t run_id,
				   uint64_t discarded, bool teardown_stuck)
{
	if (discarded)
		accwatch_run_log("warning: %" PRIu64 " events were discarded; "
				 "the report's counts are lower bounds",
				 discarded);
	if (teardown_stuck)
		accwatch_run_log("warning: the session did not end cleanly "
				 "(the collector unreachable?): what was not "
				 "sent before is missing from its trace");
	if (options->quiet)
		return;
	accwatch_run_log("trace sent to lttng-relayd at %s (session %s, run "
			 "%" PRIu32 "); on the collector, under the relayd's "
			 "output directory (a directory per host):",
			 options->relayd, session, run_id);
	fprintf(stderr, "  accwatch-report --run %" PRIu32 " RELAYD_OUTPUT\n",
		run_id);
}

/* What --fail-fast stopped, and what of the job it had to end. */
static void
accwatch_run_record_stopped(const struct accwatch_run_options *options,
			    const struct accwatch_run_live *live,
			    const struct accwatch_run_child_watch *watch)
{
	accwatch_run_log("--fail-fast stopped '%s' at: %s", options->command[0],
			 live->stopper);
	if (watch->ended_after)
		accwatch_run_log(
		    "--fail-fast: %zu process%s of the job outlived "
		    "'%s' and %s ended too",
		    watch->ended_after, watch->ended_after == 1 ? "" : "es",
		    options->command[0],
		    watch->ended_after == 1 ? "was" : "were");
	if (watch->left_running)
		accwatch_run_log("--fail-fast: %zu process%s of the job still "
				 "run%s after SIGKILL (in the kernel, or "
				 "stopped): see ps",
				 watch->left_running,
				 watch->left_running == 1 ? "" : "es",
				 watch->left_running == 1 ? "s" : "");
}

/* The live reader ended while the command ran: nothing more was printed
 * live. Said; under --fail-fast a failure of accwatch-run's own when the
 * command itself succeeded (its errors would have gone unseen). */
static int
accwatch_run_record_reader_lost(const struct accwatch_run_options *options,
				struct accwatch_run_live *live,
				const char *output_dir, int exit_code)
{
	char how[64];

	accwatch_run_live_reader_end(live, how, sizeof(how));
	accwatch_run_log("--live: the live reader (accwatch-report --live) "
			 "ended while '%s' ran (%s): nothing was printed live "
			 "after that%s; the trace is whole: accwatch-report %s",
			 options->command[0], how,
			 options->fail_fast ? ", and --fail-fast could not "
					      "stop the job"
					    : "",
			 output_dir);
	return options->fail_fast && exit_code == 0 ? ACCWATCH_RUN_EXIT_FAILURE
						    : exit_code;
}

/* --live that cannot be had: said, and the command runs recorded into
 * DIR without live lines. Returns false (live is off). */
static bool
accwatch_run_record_live_off(const struct accwatch_run_options *options,
			     const char *why, const char *output_dir)
{
	accwatch_run_log("--live: %s; '%s' runs recorded into %s without live "
			 "lines%s",
			 why, options->command[0], output_dir,
			 options->fail_fast ? " (--fail-fast cannot stop it)"
					    : "");
	return false;
}

/* --live's relay daemon, and the session config streaming to it; false
 * (said) when it cannot be had safely: the session then writes DIR. */
static bool
accwatch_run_record_live_relayd(const struct accwatch_run_options *options,
				const char *preload, const char *output_dir,
				struct accwatch_run_live *live,
				struct accwatch_run_session_config *config)
{
	char peers_lib[PATH_MAX], error[PATH_MAX + 256];

	if (!accwatch_run_record_find_peers_lib(preload, peers_lib, error,
						sizeof(error)))
		return accwatch_run_record_live_off(options, error, output_dir);
	if (accwatch_run_live_relayd_start(live, output_dir, peers_lib, error,
					   sizeof(error)) !=
	    ACCWATCH_RUN_LIVE_OK)
		return accwatch_run_record_live_off(options, error, output_dir);
	config->relayd_url = live->control_url;
	config->relayd_data_url = live->data_url;
	config->live_timer_us = ACCWATCH_RUN_LIVE_LOCAL_TIMER_US;
	return true;
}

int accwatch_run_record(struct accwatch_run_options *options)
{
	char relayd_url[300] = "";
	int exit_code = ACCWATCH_RUN_EXIT_FAILURE;
	struct accwatch_run_output output = {.dir_fd = -1};
	struct accwatch_run_session session = {0};
	struct accwatch_run_child_result child;
	struct accwatch_run_env_settings env_settings;
	struct accwatch_run_session_config config;
	struct accwatch_run_summary summary = {0};
	char preload[PATH_MAX];
	char session_name[64];
	struct accwatch_run_guard guard = {.pid = -1, .fd = -1};
	struct accwatch_run_live live;
	struct accwatch_run_guarded guarded = {&guard, session_name,
					       &live.relayd.pid};
	char **env = NULL;
	bool command_started = false;
	uint32_t run_id = 0, name_salt = 0;
	uint64_t discarded = 0;
	char unrecordable[768];
	struct accwatch_run_child_watch watch = {.fd = -1};
	char live_error[512];
	bool live_on;
	pid_t keep[3];
	struct timespec started;

	accwatch_run_live_init(&live, options->fail_fast);
	if (options->live && options->relayd) {
		accwatch_run_log("--live reads the relay daemon accwatch-run "
				 "starts itself, not --relayd's: on the "
				 "collector, run accwatch-report --live "
				 "net://HOST/host/HOSTNAME/SESSION");
		return ACCWATCH_RUN_EXIT_USAGE;
	}

	if (accwatch_run_signals_install() != ACCWATCH_RUN_SIGNALS_OK) {
		accwatch_run_log("cannot install signal handlers: %s",
				 strerror(errno));
		goto end;
	}
	if (!accwatch_run_record_find_preload(preload, sizeof(preload)))
		goto end;
	if (!accwatch_run_preflight(options, unrecordable,
				    sizeof(unrecordable))) {
		if (options->unrecordable_run)
			return accwatch_run_record_unrecorded(options,
							      unrecordable);
		accwatch_run_log("%s; '%s' was not started "
				 "(--if-unrecordable=run runs it unrecorded)",
				 unrecordable, options->command[0]);
		return ACCWATCH_RUN_EXIT_UNRECORDABLE;
	}
	if (!accwatch_run_record_run_id(options, &run_id) ||
	    !accwatch_run_record_random(&name_salt)) {
		accwatch_run_log("cannot get random bytes (getrandom): %s",
				 strerror(errno));
		goto end;
	}
	if (options->relayd)
		accwatch_run_args_relayd_url(options->relayd, relayd_url,
					     sizeof(relayd_url));
	/* The session bears its guardian's pid: see run_guard.h. */
	accwatch_run_guard_start(&guard);
	snprintf(session_name, sizeof(session_name), "accwatch-%ld-%08" PRIx32,
		 (long)(guard.pid > 0 ? guard.pid : getpid()), name_salt);
	if (!options->relayd &&
	    !accwatch_run_record_prepare_output(options, &output))
		goto end;
	env_settings = (struct accwatch_run_env_settings){
	    .preload_path = preload,
	    .run_id = run_id,
	    .allow_blocking = !options->discard,
	    .stall_ms = options->stall_seconds * 1000u,
	    .stall_dir = options->relayd ? NULL : output.path,
	};
	if (accwatch_run_env_build(environ, &env_settings, &env) !=
	    ACCWATCH_RUN_ENV_OK) {
		accwatch_run_log(
		    "cannot build the command's environment: out of memory");
		goto end;
	}
	if (!accwatch_run_record_daemon(options->quiet))
		goto end;
	accwatch_run_session_reap_orphans(accwatch_run_record_reaped);
	config = (struct accwatch_run_session_config){
	    .name = session_name,
	    .output_path = output.path,
	    .relayd_url = options->relayd ? relayd_url : NULL,
	    .buffers = options->buffers,
	    .subbuf_size = options->subbuf_size,
	    .num_subbuf = options->num_subbuf,
	    .discard = options->discard,
	    .stall_ms = options->stall_seconds * 1000u,
	    .run_id = run_id,
	};
	accwatch_run_log_debug("session %s, run %" PRIu32 ", output %s",
			       session_name, run_id,
			       options->relayd ? relayd_url : output.path);
	live_on = options->live &&
		  accwatch_run_record_live_relayd(options, preload, output.path,
						  &live, &config);
	if (!accwatch_run_record_session(&session, &config))
		goto end;
	clock_gettime(CLOCK_REALTIME, &started);
	if (live_on) {
		if (accwatch_run_live_reader_start(
			&live, session_name,
			(double)started.tv_sec + (double)started.tv_nsec / 1e9,
			live_error, sizeof(live_error)) == ACCWATCH_RUN_LIVE_OK)
			watch = accwatch_run_live_watch(&live);
		else
			live_on = accwatch_run_record_live_off(
			    options, live_error, output.path);
	}
	keep[0] = live.relayd.pid;
	keep[1] = live.analyzer;
	keep[2] = guard.pid;
	watch.keep = keep;
	watch.n_keep = 3;

	accwatch_run_child_run_watched(options->command, env,
				       accwatch_run_record_guarded, &guarded,
				       live_on ? &watch : NULL, &child);
	command_started = child.status == ACCWATCH_RUN_CHILD_EXITED ||
			  child.status == ACCWATCH_RUN_CHILD_SIGNALED;
	exit_code = accwatch_run_record_child_exit(options->command, &child);
	if (watch.stopped) {
		accwatch_run_record_stopped(options, &live, &watch);
		exit_code = ACCWATCH_RUN_EXIT_FAIL_FAST;
	} else if (live_on && live.reader_ended_early)
		exit_code = accwatch_run_record_reader_lost(
		    options, &live, output.path, exit_code);
end:
	exit_code = accwatch_run_record_teardown(
	    &session, exit_code,
	    options->stall_seconds ? ACCWATCH_RUN_TEARDOWN_SECONDS : 0,
	    &discarded);
	accwatch_run_live_finish(&live);
	accwatch_run_env_free(env);
	if (guard.pid > 0) {
		accwatch_run_guard_release(&guard);
		while (waitpid(guard.pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (command_started && options->relayd) {
		accwatch_run_record_relayd_summary(
		    options, session_name, run_id, discarded, session.created);
	} else if (command_started) {
		summary.trace_path = output.path;
		summary.trace_empty =
		    !accwatch_run_output_has_files(output.path);
		summary.discarded = discarded;
		summary.discard_mode = options->discard;
		summary.subbuf_size = options->subbuf_size;
		summary.free_bytes = accwatch_run_output_free_bytes(&output);
		summary.disk_full =
		    summary.free_bytes >= 0 &&
		    summary.free_bytes < ACCWATCH_RUN_FULL_BYTES;
		summary.stalled = accwatch_run_output_notes(
		    &output, ACCWATCH_STALL_NOTE, summary.stalled_note,
		    sizeof(summary.stalled_note));
		summary.unregistered = accwatch_run_output_notes(
		    &output, ACCWATCH_UNREGISTERED_NOTE,
		    summary.unregistered_note,
		    sizeof(summary.unregistered_note));
		summary.teardown_stuck = session.created;
		summary.quiet = options->quiet;
		/* A /dev/shm that filled up after the check above: the
		 * preload stayed dormant and said so; say it again here. */
		if (summary.trace_empty &&
		    accwatch_run_preflight_shm_after(
			summary.unrecorded, sizeof(summary.unrecorded)))
			accwatch_run_preflight_note(output.path,
						    summary.unrecorded);
		accwatch_run_summary_print(stderr, &summary);
	} else {
		accwatch_run_output_discard(&output);
	}
	accwatch_run_output_close(&output);
	return exit_code;
}
