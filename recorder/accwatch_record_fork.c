/* SPDX-License-Identifier: MIT */
/* The recorder's side of fork(): LTTng-UST's own before/after hooks (as
 * liblttng-ust-fork), and the `fork` event with the parent's threads and
 * stacks. */
#define UNW_LOCAL_ONLY
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <libunwind.h>
#include <lttng/ust-fork.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "accwatch_record.h"
#include "accwatch_tp.h"

#define ACCWATCH_NATIVE_FRAMES_MAX 32
/* LTTng-UST names its listener threads "<process name>-ust". */
#define ACCWATCH_LTTNG_THREAD_SUFFIX "-ust"

static int accwatch_is_lttng_thread_name(const char *name)
{
	size_t length = strlen(name);
	size_t suffix = strlen(ACCWATCH_LTTNG_THREAD_SUFFIX);

	return length >= suffix && strcmp(name + length - suffix,
					  ACCWATCH_LTTNG_THREAD_SUFFIX) == 0;
}

static int accwatch_current_thread_is_lttng(void)
{
	char name[17] = "";

	if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0)
		return 0;
	return accwatch_is_lttng_thread_name(name);
}

/* Appends text (and a separator first when the buffer is not empty);
 * truncates silently. */
static void accwatch_append(char *buffer, size_t size, const char *separator,
			    const char *text)
{
	size_t used = strlen(buffer);

	if (used > 0 && used + 1 < size) {
		snprintf(buffer + used, size - used, "%s", separator);
		used = strlen(buffer);
	}
	if (used + 1 < size)
		snprintf(buffer + used, size - used, "%s", text);
}

/* Whether tid is one of the Python threads of py_threads ("native_id name"
 * per line). */
static int accwatch_is_python_thread(const char *py_threads, long tid)
{
	const char *line = py_threads;

	while (line && *line) {
		if (strtol(line, NULL, 10) == tid)
			return 1;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

/* The Python threads, "module name" a line each, without their ids. */
static void accwatch_python_thread_names(char *buffer, size_t size,
					 const char *py_threads)
{
	const char *line = py_threads;

	buffer[0] = '\0';
	while (line && *line) {
		const char *name = strchr(line, ' ');
		const char *end = strchr(line, '\n');
		size_t used = strlen(buffer);

		if (name && (!end || name < end) && used + 1 < size)
			snprintf(buffer + used, size - used, "%s%.*s",
				 used ? "\n" : "",
				 (int)(end ? end - name - 1
					   : (long)strlen(name + 1)),
				 name + 1);
		line = end ? end + 1 : NULL;
	}
}

/* Calls visit(tid, comm, data) for each thread of the process; stops when
 * visit returns 0. */
static void accwatch_each_thread(int (*visit)(long tid, const char *name,
					      void *data),
				 void *data)
{
	DIR *tasks = opendir("/proc/self/task");
	struct dirent *entry;

	if (!tasks)
		return;
	while ((entry = readdir(tasks)) != NULL) {
		char path[sizeof(entry->d_name) + 32], name[64];
		ssize_t length;
		int fd;

		if (entry->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 entry->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		length = read(fd, name, sizeof(name) - 1);
		close(fd);
		if (length <= 0)
			continue;
		name[length] = '\0';
		name[strcspn(name, "\n")] = '\0';
		if (!visit(strtol(entry->d_name, NULL, 10), name, data))
			break;
	}
	closedir(tasks);
}

struct accwatch_snapshot_visit {
	struct accwatch_fork_snapshot *snapshot;
	const char *py_threads;
};

static int accwatch_snapshot_thread(long tid, const char *name, void *data)
{
	struct accwatch_snapshot_visit *visit = data;
	struct accwatch_fork_snapshot *snapshot = visit->snapshot;

	if (accwatch_is_lttng_thread_name(name))
		return 1;
	snapshot->threads++;
	if (!accwatch_is_python_thread(visit->py_threads, tid))
		accwatch_append(snapshot->thread_names,
				sizeof(snapshot->thread_names), ",", name);
	return 1;
}

/* Native threads of the process: LTTng's own left out, and Python's
 * (py_threads, named apart) left out of the names. */
static void accwatch_snapshot_threads(struct accwatch_fork_snapshot *snapshot,
				      const char *py_threads)
{
	struct accwatch_snapshot_visit visit = {snapshot, py_threads};

	snapshot->threads = 0;
	snapshot->thread_names[0] = '\0';
	accwatch_each_thread(accwatch_snapshot_thread, &visit);
}

static uint8_t accwatch_cuda_mapped(void)
{
	FILE *maps = fopen("/proc/self/maps", "re");
	char line[4096];
	uint8_t found = 0;

	if (!maps)
		goto end;
	while (!found && fgets(line, sizeof(line), maps))
		found = strstr(line, "libcuda.so") != NULL;
	fclose(maps);
end:
	return found;
}

/* "object!symbol+0xoffset" per frame, outermost first; accwatch's own
 * frames left out. */
static void accwatch_snapshot_native_stack(char *buffer, size_t size)
{
	void *frames[ACCWATCH_NATIVE_FRAMES_MAX];
	int count = unw_backtrace(frames, ACCWATCH_NATIVE_FRAMES_MAX);
	int i;

	buffer[0] = '\0';
	for (i = count - 1; i >= 0; i--) {
		const char *object = "?";
		char frame[256];
		Dl_info info;

		if (!dladdr(frames[i], &info)) {
			snprintf(frame, sizeof(frame), "?+%p", frames[i]);
			accwatch_append(buffer, size, "\n", frame);
			continue;
		}
		if (info.dli_fname) {
			const char *slash = strrchr(info.dli_fname, '/');

			object = slash ? slash + 1 : info.dli_fname;
		}
		if (strncmp(object, "libaccwatch", strlen("libaccwatch")) == 0)
			continue;
		if (info.dli_sname)
			snprintf(frame, sizeof(frame), "%s!%s+0x%lx", object,
				 info.dli_sname,
				 (unsigned long)((char *)frames[i] -
						 (char *)info.dli_saddr));
		else
			snprintf(frame, sizeof(frame), "%s+0x%lx", object,
				 (unsigned long)((char *)frames[i] -
						 (char *)info.dli_fbase));
		accwatch_append(buffer, size, "\n", frame);
	}
}

struct accwatch_thread_count {
	unsigned lttng, others;
};

static int accwatch_count_thread(long tid, const char *name, void *data)
{
	struct accwatch_thread_count *count = data;

	(void)tid;
	if (accwatch_is_lttng_thread_name(name))
		count->lttng++;
	else
		count->others++;
	return count->others < 2;
}

/* Whether LTTng-UST's threads are all that make the process multi-threaded:
 * the program alone would have one thread. */
static int accwatch_only_lttng_threads(void)
{
	struct accwatch_thread_count count = {0, 0};

	accwatch_each_thread(accwatch_count_thread, &count);
	return count.lttng > 0 && count.others <= 1;
}

/* Python 3.12+ warns at os.fork() in a multi-threaded process (it counts
 * the OS threads): _fork_quiet(only LTTng-UST's threads besides this one)
 * keeps that warning from a program that alone would not get it. */
static void accwatch_quiet_fork_warning(void)
{
	if (accwatch_recorder.fork_quiet_fn)
		accwatch_record_call_one(
		    accwatch_recorder.fork_quiet_fn,
		    accwatch_recorder.api->PyLong_FromLongLong(
			accwatch_only_lttng_threads()));
}

/* _fork_stack() answers (stack, threads): both kept for the fork that
 * follows in this thread. */
void accwatch_record_on_fork_audit(void)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *answer = NULL;
	const char *stack, *threads;

	accwatch_quiet_fork_warning();
	accwatch_recorder.py_stack_valid = 0;
	if (!accwatch_recorder.fork_stack_fn)
		goto end;
	answer =
	    api->PyObject_CallObject(accwatch_recorder.fork_stack_fn, NULL);
	if (!answer || api->PyTuple_Size(answer) != 2)
		goto end;
	stack = api->PyUnicode_AsUTF8(api->PyTuple_GetItem(answer, 0));
	threads = stack ? api->PyUnicode_AsUTF8(api->PyTuple_GetItem(answer, 1))
			: NULL;
	if (!threads)
		goto end;
	snprintf(accwatch_recorder.py_stack, sizeof(accwatch_recorder.py_stack),
		 "%s", stack);
	snprintf(accwatch_recorder.py_threads,
		 sizeof(accwatch_recorder.py_threads), "%s", threads);
	accwatch_recorder.py_stack_thread = pthread_self();
	accwatch_recorder.py_stack_valid = 1;
end:
	accwatch_py_drop(api, answer);
	if (api->PyErr_Occurred())
		api->PyErr_Clear();
}

void accwatch_record_before_fork(sigset_t *sigset)
{
	struct accwatch_fork_snapshot *snapshot = &accwatch_recorder.fork;
	int idle = 0;

	/* LTTng's listener threads fork too: not the program's forks. */
	if (lttng_ust_tracepoint_enabled(accwatch, fork) &&
	    !accwatch_current_thread_is_lttng() &&
	    atomic_compare_exchange_strong(&snapshot->busy, &idle, 1)) {
		int python = accwatch_recorder.py_stack_valid &&
			     pthread_equal(accwatch_recorder.py_stack_thread,
					   pthread_self());
		const char *py_threads =
		    python ? accwatch_recorder.py_threads : "";

		snapshot->owner = pthread_self();
		accwatch_snapshot_threads(snapshot, py_threads);
		accwatch_python_thread_names(snapshot->py_threads,
					     sizeof(snapshot->py_threads),
					     py_threads);
		snapshot->cuda_mapped = accwatch_cuda_mapped();
		accwatch_snapshot_native_stack(snapshot->native_stack,
					       sizeof(snapshot->native_stack));
		snapshot->py_stack[0] = '\0';
		if (python)
			memcpy(snapshot->py_stack, accwatch_recorder.py_stack,
			       sizeof(snapshot->py_stack));
	}
	accwatch_recorder.registered_at_fork = accwatch_register_done();
	lttng_ust_before_fork(sigset);
}

void accwatch_record_after_fork_parent(sigset_t *sigset, pid_t child)
{
	struct accwatch_fork_snapshot *snapshot = &accwatch_recorder.fork;
	lttng_ust_after_fork_parent(sigset);
	if (!atomic_load(&snapshot->busy) ||
	    !pthread_equal(snapshot->owner, pthread_self()))
		goto end;
	if (child > 0) {
		struct accwatch_fork_info info = {
		    .run = accwatch_recorder.run,
		    .pid = accwatch_recorder.pid,
		    .child_pid = child,
		    .threads = snapshot->threads,
		    .thread_names = snapshot->thread_names,
		    .cuda_mapped = snapshot->cuda_mapped,
		    .py_stack = snapshot->py_stack,
		    .native_stack = snapshot->native_stack,
		    .py_threads = snapshot->py_threads};
		ACCWATCH_BOUNDED("fork", ACCWATCH_UNKNOWN, ACCWATCH_UNKNOWN,
				 ACCWATCH_UNKNOWN,
				 lttng_ust_tracepoint(accwatch, fork, &info));
	}
	atomic_store(&snapshot->busy, 0);
end:
	if (pthread_equal(accwatch_recorder.py_stack_thread, pthread_self()))
		accwatch_recorder.py_stack_valid = 0;
}

/* Python is not fixed up yet: no C-API call, no event. */
void accwatch_record_after_fork_child(sigset_t *sigset)
{
	accwatch_recorder.pid = getpid();
	accwatch_recorder.py_stack_valid = 0;
	atomic_store(&accwatch_recorder.fork.busy, 0);
	lttng_ust_after_fork_child(sigset);
	/* lttng-ust waited for the daemon to take the child; past its bound,
	 * ours (accwatch_record_register.c). */
	if (accwatch_recorder.registered_at_fork)
		accwatch_register_wait();
}
