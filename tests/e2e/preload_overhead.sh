#!/bin/bash
# Measures what libaccwatch.so adds per batch (batch 64, in-memory dataset,
# num_workers=0): separate processes without the preload, preloaded without
# a session, and recording, interleaved ROUNDS times; best of each, and the
# trace's bytes per index. Prints numbers; not a pass/fail test. Machine
# load shows in the medians: trust the numbers of a quiet machine.
# Usage: preload_overhead.sh LIBDIR [ROUNDS [EPOCHS [BATCHES]]]
set -u
libdir=$(cd "${1:?usage: preload_overhead.sh BUILD_DIR/lib [ROUNDS [EPOCHS [BATCHES]]]}" && pwd) || exit 2
rounds=${2:-5}
epochs=${3:-20}
batches=${4:-500}
here=$(cd "$(dirname "$0")" && pwd)
python=${ACCWATCH_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
session=accwatch_overhead_$$
trap 'lttng destroy "$session" >/dev/null 2>&1; rm -rf "$work"' EXIT
lttng list >/dev/null 2>&1 || lttng-sessiond --daemonize >/dev/null || exit 1

measure() { # measure COLLATE MODE
	local preload=""
	[ "$2" != plain ] && preload=$libdir/libaccwatch.so
	if [ "$2" = recording ]; then
		lttng create "$session" --output="$work/trace" >/dev/null
		lttng enable-channel -u -s "$session" --subbuf-size=4M \
			--num-subbuf=4 chan >/dev/null
		lttng enable-event -u -s "$session" -c chan 'accwatch:*' >/dev/null
		lttng start "$session" >/dev/null
	fi
	LD_PRELOAD=$preload "$python" "$here/preload_overhead.py" "$1" \
		"$epochs" "$batches" >>"$work/$1.$2"
	if [ "$2" = recording ]; then
		lttng stop "$session" >/dev/null
		lttng destroy "$session" >/dev/null
		du -sb "$work/trace" | cut -f1 >"$work/bytes"
		rm -rf "$work/trace"
	fi
}

for collate in identity default; do
	for _ in $(seq "$rounds"); do
		for mode in plain dormant recording; do
			measure "$collate" "$mode"
		done
	done
	"$python" - "$work" "$collate" "$epochs" "$batches" <<'PY'
import statistics, sys
work, collate, epochs, batches = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def runs(mode):
    return [tuple(map(float, line.split())) for line in open("%s/%s.%s" % (work, collate, mode))]
best = {m: min(r[0] for r in runs(m)) for m in ("plain", "dormant", "recording")}
median = {m: statistics.median(r[1] for r in runs(m)) for m in best}
indices = epochs * batches * 64
print("%-8s µs/batch plain %.2f | dormant %.2f (%.3fx) | recording %.2f (%.3fx) | "
      "medians %.2f %.2f %.2f | %.2f trace bytes/index"
      % (collate, best["plain"], best["dormant"], best["dormant"] / best["plain"],
         best["recording"], best["recording"] / best["plain"], median["plain"],
         median["dormant"], median["recording"], int(open(work + "/bytes").read()) / indices))
PY
done
