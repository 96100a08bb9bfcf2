#!/bin/bash
# SPDX-License-Identifier: MIT
# Every rank of a job is recorded however many start at once, or the loss
# is said. lttng-ust lets a process run untaken (unregistered) after 3 s
# without the session daemon's answer, and what it emits until then is
# lost uncounted; the recorder waits on, up to the stall bound, and past it
# leaves a note that accwatch-run and the report tell. Cases, with the
# ranks of preload_register.py: 100 ranks forked at once beside two busy
# loops (all recorded, no finding); the daemon stopped for 6 s while 2 of 4
# ranks start (they wait, all recorded); stopped for 9 s under
# --stall-timeout 3 (2 notes, accwatch-run warns, the report says
# trace-incomplete and no error). The ranks' reads are checked against what
# each wrote down. Runs in a private mount namespace with a session daemon
# of its own, which it stops (root only; exit 77 otherwise).
# Usage: preload_register.sh LIBDIR
set -u
libdir=$(cd "${1:?usage: preload_register.sh BUILD_DIR/lib}" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
python=${ACCWATCH_PYTHON:-/usr/bin/python3}
run=$libdir/../bin/accwatch-run
report=$libdir/../bin/accwatch-report
. "$here/private_lttng.sh"
busy=
cleanup() {
	[ -n "$busy" ] && kill $busy 2>/dev/null
	if [ -f /var/run/lttng/lttng-sessiond.pid ]; then
		daemon=$(cat /var/run/lttng/lttng-sessiond.pid)
		kill -CONT "$daemon" 2>/dev/null
		kill "$daemon" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
lttng-sessiond --daemonize >/dev/null 2>&1 || { echo "FAIL: no session daemon"; exit 1; }

# case NAME RANKS STOP_AT HOLD [accwatch-run options]: runs it; the report
# in $out/report.json, accwatch-run's stderr in $out/run.err.
case_run() {
	local name=$1 ranks=$2 stop_at=$3 hold=$4
	shift 4
	out=$work/$name
	mkdir -p "$out/truth"
	"$run" -o "$out/trace" "$@" -- "$python" "$here/preload_register.py" \
		"$ranks" "$stop_at" "$hold" "$out/truth" >"$out/run.out" 2>"$out/run.err"
	status=$?
	"$report" --format json -o "$out/report.json" "$out/trace" 2>"$out/report.err"
}

# check NAME RECORDED ERRORS WARNINGS UNREGISTERED: the report against the
# ranks' own files.
check() {
	"$python" - "$out" "$@" <<'PY'
import glob, json, os, sys
out, name, recorded, errors, warnings, unregistered = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
report = json.load(open(os.path.join(out, "report.json")))
truth = {int(os.path.basename(p)[5:-5]): json.load(open(p)) for p in glob.glob(os.path.join(out, "truth", "rank-*.json"))}
problems = []
if len(report["ranks"]) != recorded:
    problems.append(f"{len(report['ranks'])} ranks in the report, not {recorded}")
s = report["summary"]
if (s["errors"], s["warnings"]) != (errors, warnings):
    problems.append(f"{s['errors']} errors and {s['warnings']} warnings, not {errors} and {warnings}: "
                    + ", ".join(f"{f['id']} ({f['severity']})" for f in report["findings"]))
for loader in report["loaders"]:
    for epoch in loader["epochs"]:
        for cell in epoch["ranks"]:
            if cell["samples"] != len(truth.get(cell["rank"], [])):
                problems.append(f"rank {cell['rank']}: {cell['samples']} samples, it read {len(truth.get(cell['rank'], []))}")
incomplete = [f for f in report["findings"] if f["id"] == "trace-incomplete"]
told = incomplete[0]["numbers"].get("unregistered_processes", 0) if incomplete else 0
if told != unregistered:
    problems.append(f"trace-incomplete tells {told} unregistered processes, not {unregistered}")
notes = glob.glob(os.path.join(out, "trace", "accwatch-unregistered.*"))
if len(notes) != unregistered:
    problems.append(f"{len(notes)} notes in the trace directory, not {unregistered}")
print(("FAIL " + name + ": " + "; ".join(problems)) if problems else f"ok   {name}")
sys.exit(1 if problems else 0)
PY
}

# 100 ranks at once on a machine kept busy.
for _ in 1 2; do (while :; do :; done) & busy="$busy $!"; done
case_run at_once 100 100 0
kill $busy 2>/dev/null
busy=
[ "$status" = 0 ] && pass || fail "at_once: accwatch-run exited $status: $(tail -3 "$out/run.err")"
check at_once 100 0 0 0 && pass || fail "at_once: see above"

# The daemon stopped for 6 s while ranks 2 and 3 start: they wait for it.
case_run waited 4 2 6
[ "$status" = 0 ] && pass || fail "waited: accwatch-run exited $status: $(tail -3 "$out/run.err")"
check waited 4 0 0 0 && pass || fail "waited: see above"

# Stopped for 9 s, longer than lttng-ust's 3 s and a stall bound of 3 s:
# ranks 2 and 3 run unrecorded; said by accwatch-run and the report.
case_run given_up 4 2 9 --stall-timeout 3
[ "$status" = 0 ] && pass || fail "given_up: accwatch-run exited $status: $(tail -3 "$out/run.err")"
grep -q "warning: 2 processes of the command waited .* ms for the LTTng session daemon" "$out/run.err" && pass ||
	fail "given_up: accwatch-run did not say it: $(cat "$out/run.err")"
check given_up 2 0 2 2 && pass || fail "given_up: see above"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
