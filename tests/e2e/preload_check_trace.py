# SPDX-License-Identifier: MIT
# Checks a trace recorded from preload_record_scenario.py against what the
# scenario itself read. Usage: preload_check_trace.py TRACE EXPECTED.json RUN
import collections
import json
import sys

import bt2

from packed import plain

trace_dir, expected_path, run_id = sys.argv[1], sys.argv[2], int(sys.argv[3])
expected = json.load(open(expected_path))
main = expected["main_pid"]
UNKNOWN = 2**32 - 1

passed = failed = 0


def check(condition, what):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def value(field):
    if isinstance(field, bt2._StringFieldConst):
        return str(field)
    if isinstance(field, bt2._ArrayFieldConst):
        return [int(item) for item in field]
    return int(field)


events = []
discarded = 0
for message in bt2.TraceCollectionMessageIterator(trace_dir):
    if type(message) is bt2._DiscardedEventsMessageConst:
        discarded += 1
    if type(message) is not bt2._EventMessageConst:
        continue
    payload = message.event.payload_field
    fields = {key: value(field) for key, field in payload.items()}
    if fields["run"] != run_id:
        continue
    name, fields = plain(message.event.name.split(":", 1)[1], fields)
    fields["name"] = name
    events.append(fields)

check(discarded == 0, "no discarded events (%d)" % discarded)
check(all(e["run"] == run_id for e in events), "run id on every event")
pids = {e["pid"] for e in events}
by_name = collections.defaultdict(list)
for e in events:
    by_name[e["name"]].append(e)

# process: the main one is a rank (RANK=0 is set), workers end as "worker".
last_role = {}
for e in by_name["process"]:
    last_role[e["pid"]] = e
check(main in last_role, "process event of the main pid")
if main in last_role:
    p = last_role[main]
    check(p["role"] == "rank" and p["rank"] == 0 and p["world_size"] == 1
          and p["rank_source"] == "RANK", "main process is rank 0: %r" % p)
workers = {pid for pid, p in last_role.items() if p["role"] == "worker"}
check(all(last_role[pid]["ppid"] == main for pid in workers),
      "workers are children of the main process")

# loader_new: one per loader the scenario built, in order.
loaders = [e for e in by_name["loader_new"] if e["pid"] == main]
check(len(loaders) == len(expected["loaders"]),
      "%d loader_new for %d loaders" % (len(loaders), len(expected["loaders"])))
check([e["loader"] for e in loaders] == list(range(len(loaders))),
      "loader ids count from 0")
if len(loaders) > 5:
    check(loaders[5]["loader_class"].endswith("MyLoader"), "subclass class")
    check(loaders[1]["num_workers"] == 2 and loaders[1]["shuffle"] == 1
          and loaders[1]["start_method"] == "fork", "loader 1 fields")
    line = next(number for number, text in enumerate(
        open(__file__.replace("preload_check_trace.py",
                              "preload_record_scenario.py")), 1)
        if text.startswith("run(DataLoader(Indexed(100)"))
    check(loaders[0]["site"].endswith("preload_record_scenario.py:%d" % line),
          "creation site %r" % loaders[0]["site"])


def batches_of(name, pid, loader, iteration):
    """{batch ordinal: indices}, chunks joined, for one iteration."""
    parts = collections.defaultdict(dict)
    totals = {}
    for e in by_name[name] + by_name[name + "_wide"]:
        if ((pid is None or e["pid"] == pid) and e["loader"] == loader
                and e["iteration"] == iteration):
            key = (e["pid"], e["batch"]) if pid is None else e["batch"]
            parts[key][e["offset"]] = e["indices"]
            totals[key] = e["total"]
    joined = {}
    for key, chunks in parts.items():
        indices = []
        for offset in sorted(chunks):
            indices += chunks[offset]
        if len(indices) == totals[key]:
            joined[key] = indices
    return joined


ends = {(e["loader"], e["iteration"]): e for e in by_name["iter_end"]
        if e["pid"] == main}
check(len(ends) == len(by_name["iter_end"]) - sum(
    1 for e in by_name["iter_end"] if e["pid"] != main),
    "one iter_end per iteration")
for number, loader in enumerate(expected["loaders"]):
    for iteration, epoch in enumerate(loader["epochs"]):
        where = "loader %d iteration %d" % (number, iteration)
        drawn = batches_of("batch", main, number, iteration)
        got = [drawn.get(k) for k in range(len(epoch["batches"]))]
        want = [b["indices"] for b in epoch["batches"]]
        check(got == want, where + ": drawn batches are the ones read")
        end = ends.get((number, iteration))
        check(end is not None, where + ": iter_end")
        if end is not None:
            check(end["yielded"] == len(want) and
                  end["exhausted"] == int(epoch["exhausted"]) and
                  end["drawn"] >= end["yielded"] and
                  end["drawn"] == len(drawn),
                  where + ": iter_end counts %r" % end)
        # Each batch a worker fetched was fetched in the worker that read it.
        read_by = {tuple(b["indices"]): b["pids"] for b in epoch["batches"]}
        fetched = batches_of("worker_fetch", None, number, iteration)
        for (pid, _), indices in fetched.items():
            if tuple(indices) in read_by:
                check(read_by[tuple(indices)] == [pid] and pid != main,
                      where + ": worker_fetch pid %d" % pid)
        if any(b["pids"] != [main] for b in epoch["batches"]):
            seen = {tuple(i) for i in fetched.values()}
            check(all(tuple(b["indices"]) in seen for b in epoch["batches"]),
                  where + ": every batch read by a worker has worker_fetch")

# wide indices and one-index batches
check(batches_of("batch", main, 7, 0).get(0) == [2**32 + 5, 7],
      "wide indices recorded")
check(any(e["loader"] == 7 for e in by_name["batch_wide"]), "batch_wide used")
check(batches_of("batch", main, 4, 0) == {k: [k] for k in range(5)},
      "batch_size=None gives one-index batches")
check(len([e for e in by_name["batch"] if e["loader"] == 6]) == 3,
      "5000 indices split in 4096 + 904, then 1000")

# forks, from the main process, one per worker started
forks = [e for e in by_name["fork"] if e["pid"] == main]
check(len(forks) == expected["forks"],
      "%d fork events for %d workers" % (len(forks), expected["forks"]))
check(all(e["threads"] >= 1 and e["thread_names"] for e in forks),
      "fork events carry threads")
check(all("popen_fork.py" in e["py_stack"] for e in forks),
      "fork events carry the Python stack")
check({e["child_pid"] for e in forks} >= workers,
      "every worker's fork was recorded")
starts = by_name["worker_start"]
check({e["pid"] for e in starts} == workers, "worker_start in each worker")
# persistent workers: one worker_start each, iterations follow the epochs
persistent = [e for e in by_name["worker_fetch"] if e["loader"] == 3]
check({e["iteration"] for e in persistent} == {0, 1, 2},
      "persistent workers see iterations 0, 1, 2")
check(len([e for e in starts if e["loader"] == 3]) == 2,
      "persistent workers start once")
lens = [e for e in by_name["loader_len"] if e["pid"] == main]
check(any(e["loader"] == 0 and e["value"] == 13 for e in lens),
      "loader_len of loader 0")

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
