#!/bin/bash
# SPDX-License-Identifier: MIT
# accelerate's outer loaders (the real accelerate of the stack: v0.2x
# subclasses of DataLoader, v1.x adapters around one): same output with
# libaccwatch.so, and loader_wrap / loader_len / iterations recorded as
# documented in recorder/boot/00_core.py. Usage: preload_accelerate.sh LIBDIR
set -u
. "$(dirname "$0")/session.sh"
aw_test accelerate "${1:-}"
aw_session || exit 1
"$python" "$here/preload_accelerate.py" >"$work/plain" 2>&1
ACCWATCH_RUN=$run LD_PRELOAD=$libdir/libaccwatch.so "$python" \
	"$here/preload_accelerate.py" >"$work/preloaded" 2>&1
lttng stop "$session" >/dev/null

# Read with Debian's python3-bt2, whatever the stack.
/usr/bin/python3 - "$work" "$here/preload_accelerate.py" <<'PY'
import sys
import bt2

work = sys.argv[1]
checks = []
checks.append((open(work + "/plain").read() == open(work + "/preloaded").read(),
               "same output with the preload"))
events = []
for message in bt2.TraceCollectionMessageIterator(work + "/trace"):
    if type(message) is bt2._EventMessageConst:
        fields = {k: (str(v) if isinstance(v, bt2._StringFieldConst) else
                      list(v) if isinstance(v, bt2._ArrayFieldConst) else int(v))
                  for k, v in message.event.payload_field.items()}
        fields["name"] = message.event.name.split(":")[1]
        events.append(fields)
pids = {e["pid"] for e in events if e["name"] == "loader_wrap"}
checks.append((len(pids) == 1, "one recorded process"))
named = lambda name: [e for e in events if e["name"] == name]
news = {e["loader"]: e for e in named("loader_new")}
wraps = named("loader_wrap")
checks.append(([(w["kind"], w["split_batches"], w["even_batches"],
                 w["num_processes"], w["process_index"]) for w in wraps] ==
               [("shard", 0, 1, 4, 2), ("dispatcher", 0, -1, 1, 0),
                ("shard", 0, 1, 4, 2)], "loader_wrap fields %r" % wraps))
script = open(sys.argv[2]).read().splitlines()
lines = [next(n for n, text in enumerate(script, 1) if text.startswith(name))
         for name in ("shard =", "dispatcher =", "skipping =")]
for w in wraps:
    outer, inner = news.get(w["outer"]), news.get(w["inner"])
    # v0.2x: the outer loader is the DataLoader torch iterates (inner is outer)
    adapter = w["outer"] != w["inner"]
    checks.append((outer is not None and inner is not None
                   and outer["loader_class"].startswith("accelerate.")
                   and (inner["loader_class"].endswith(".DataLoader") or not adapter)
                   and outer["site"] == inner["site"]
                   and outer["site"].endswith("preload_accelerate.py:%d" % (
                       lines[wraps.index(w)])),
                   "outer/inner loader_new of %r" % w))
checks.append((news[wraps[0]["inner"]]["shuffle"] == 1, "shuffle seen below the shard"))
lens = {(e["loader"], e["value"]) for e in named("loader_len")}
checks.append((lens == {(wraps[0]["outer"], 13), (wraps[1]["outer"], 51),
                        (wraps[2]["outer"], 10)}, "len() on outer loaders %r" % lens))
ends = {e["loader"]: e for e in named("iter_end")}
checks.append((ends.get(wraps[0]["inner"], {}).get("yielded") == 13 and
               ends[wraps[0]["inner"]]["exhausted"] == 1, "shard iterated on inner"))
failed = [what for ok, what in checks if not ok]
for what in failed:
    print("FAIL: " + what)
print("%d passed, %d failed" % (len(checks) - len(failed), len(failed)))
sys.exit(1 if failed else 0)
PY
