#!/bin/sh
# SPDX-License-Identifier: MIT
# accwatch-report on traces nobody should have to read: empty, foreign,
# damaged, absurd, mixed up. Any trace in, a clear answer out: one line on
# stderr naming the path and exit status 2, or a report that says it is
# incomplete (finding trace-incomplete, or trace.read_error in the JSON);
# never a crash, a hang or unbounded memory (each run has a time and a
# memory limit).
#
#   robustness.sh setup            record the traces the cases damage
#   robustness.sh case NAME        one case (a ctest test each)
#   robustness.sh cleanup
#
# Environment (set by CMake): AW_WORK (scratch directory), AW_REPORT,
# AW_RUN (accwatch-run), AW_GEN (accwatch_trace_gen), AW_DAMAGE,
# AW_SANITIZED=1 for an ASan build (no address-space limit: ASan reserves
# terabytes of it).
set -u

work=${AW_WORK:?} report=${AW_REPORT:?} run=${AW_RUN:?} gen=${AW_GEN:?}
damage=${AW_DAMAGE:?}
report_opts=""
traces=$work/traces
# Bounds of every accwatch-report run: seconds, and bytes of address space.
limit_s=${AW_LIMIT_S:-60}
limit_as=$((2048 * 1024 * 1024))
# The report's own watchdog must fire well before the test's timeout.
export ACCWATCH_REPORT_TIMEOUT="${ACCWATCH_REPORT_TIMEOUT:-20}"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
note() { echo "  $*"; }

# --- recording ---------------------------------------------------------

# record_aw NAME [accwatch-run options] -- SCENARIO...: trace_gen through
# accwatch-run (blocking buffers unless --discard), into $traces/NAME.
record_aw() {
	name=$1
	shift
	opts=""
	while [ "$1" != "--" ]; do
		opts="$opts $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # opts are words
	# In an ASan build trace_gen is instrumented and libaccwatch.so (not
	# instrumented, and not interposing malloc) comes first in its
	# LD_PRELOAD: ASan's check of the library order would stop it.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	"$run" -q -f -o "$traces/$name" $opts -- \
		sh -c "exec \"$gen\" \"\$ACCWATCH_RUN\" $*" \
		>"$traces/$name.out" 2>"$traces/$name.err" ||
		{ cat "$traces/$name.err"; return 1; }
}

# record_lttng NAME EVENTS COMMAND...: a plain lttng session enabling EVENTS
# (comma-separated -u event specs) while COMMAND runs.
record_lttng() {
	name=$1 events=$2
	shift 2
	session="aw_robust_$$_$name"
	lttng create "$session" --output="$traces/$name" >/dev/null || return 1
	old_ifs=$IFS
	set -f # event specs hold '*'
	IFS=,
	for spec in $events; do
		IFS=$old_ifs
		# shellcheck disable=SC2086 # spec holds options
		lttng enable-event -u -s "$session" $spec >/dev/null ||
			{ lttng destroy "$session" >/dev/null; set +f; return 1; }
	done
	IFS=$old_ifs
	set +f
	lttng start "$session" >/dev/null && "$@" >/dev/null 2>&1
	status=$?
	lttng stop "$session" >/dev/null
	lttng destroy "$session" >/dev/null
	return $status
}

libc_wrapper() {
	for dir in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
		[ -e "$dir/liblttng-ust-libc-wrapper.so.1" ] &&
			{ echo "$dir/liblttng-ust-libc-wrapper.so.1"; return 0; }
	done
	return 1
}

setup() {
	rm -rf "$work"
	mkdir -p "$traces"
	echo skip >"$work/status"
	command -v lttng >/dev/null 2>&1 || skip "no lttng CLI"
	if ! lttng list >/dev/null 2>&1; then
		command -v lttng-sessiond >/dev/null 2>&1 || skip "no lttng-sessiond"
		lttng-sessiond --daemonize --quiet >/dev/null 2>&1
		lttng list >/dev/null 2>&1 || skip "no session daemon could be started"
	fi
	record_aw sharded -- sharded || fail "recording sharded"
	record_aw unsharded -- unsharded || fail "recording unsharded"
	record_aw absurd -- absurd || fail "recording absurd"
	# Tiny discard-mode buffers, a burst (lost or not, as the consumer
	# keeps up) and four events larger than a sub-buffer (always lost):
	# a loaded machine's consumer keeps up with the burst alone.
	record_aw discards --discard --subbuf-size 64k --num-subbuf 2 \
		-- discards 400000 || fail "recording discards"
	mkdir -p "$traces/two_runs"
	record_aw two_runs/first -- sharded || fail "recording two_runs/first"
	record_aw two_runs/second -- unsharded || fail "recording two_runs/second"

	# Another provider: liblttng-ust-libc-wrapper's malloc/free events
	# (in ls, not in the possibly ASan-instrumented trace_gen: the wrapper
	# interposes malloc).
	wrapper=$(libc_wrapper) || fail "no liblttng-ust-libc-wrapper.so.1"
	record_lttng foreign "lttng_ust_libc:*" \
		env LD_PRELOAD="$wrapper" ls -l / || fail "recording foreign"
	# Both providers in one trace.
	record_lttng mixed "lttng_ust_libc:*,accwatch:* --filter run==4242" \
		sh -c "env LD_PRELOAD=\"$wrapper\" ls -l / && \"$gen\" 4242 sharded" ||
		fail "recording mixed"
	# Two runs in one trace: a session that did not filter on the run.
	record_lttng mixed_runs "accwatch:*" \
		sh -c "\"$gen\" 4343 sharded && \"$gen\" 4344 unsharded" ||
		fail "recording mixed_runs"
	echo ok >"$work/status"
	du -sh "$traces"
}

# --- checking ----------------------------------------------------------

need_traces() {
	[ "$(cat "$work/status" 2>/dev/null)" = ok ] ||
		skip "the traces were not recorded (robustness_setup skipped)"
}

# copy NAME FROM: a fresh copy of trace FROM as $work/NAME; prints the
# directory of its streams.
copy() {
	rm -rf "${work:?}/$1"
	cp -r "$traces/$2" "$work/$1" || fail "copying $2"
	dirname "$(find "$work/$1" -name metadata | head -n 1)"
}

# The stream files of a trace directory, one a line.
streams() {
	for f in "$1"/*; do
		[ -f "$f" ] && [ "$(basename "$f")" != metadata ] && echo "$f"
	done
}

# The name of the stream file holding the most bytes of a trace directory.
largest_stream() {
	best="" best_size=-1
	for f in $(streams "$1"); do
		size=$(stat -c %s "$f")
		[ "$size" -gt "$best_size" ] && best=$f best_size=$size
	done
	basename "$best"
}

# report EXPECT PATH [ENV=VALUE...]: runs accwatch-report (with the options
# in $report_opts) on PATH under the limits and checks its answer. EXPECT: error (status 2, one line naming
# PATH), report (status 0 or 1, a JSON report), incomplete (a report that
# says it is incomplete), either (error or incomplete), any (error or any
# report: bytes changed inside a value or a string leave a trace that is
# valid, only wrong, and CTF streams carry no checksum).
report() {
	expect=$1 path=$2
	shift 2
	out=$work/$casename.json err=$work/$casename.err
	rm -f "$out" "$err"
	if [ "${AW_SANITIZED:-0}" = 1 ]; then
		limit=""
	else
		limit="prlimit --as=$limit_as"
	fi
	start=$(date +%s)
	# shellcheck disable=SC2086 # limit is a command prefix, opts words
	env "$@" timeout -k 5 "$limit_s" $limit "$report" --format json \
		$report_opts -o "$out" "$path" 2>"$err"
	status=$?
	took=$(($(date +%s) - start))
	case $status in
	0 | 1 | 2) ;;
	124 | 137) fail "$path: no answer within $limit_s s (hang)" ;;
	*) cat "$err"; fail "$path: exit status $status (a crash?)" ;;
	esac
	grep -q -e "AddressSanitizer" -e "runtime error:" -e "LeakSanitizer" "$err" &&
		{ cat "$err"; fail "$path: a sanitizer report"; }
	if [ $status = 2 ]; then
		case $expect in
		report | incomplete) cat "$err"; fail "$path: status 2, a report was expected" ;;
		esac
		[ "$(wc -l <"$err")" -eq 1 ] ||
			{ cat "$err"; fail "$path: status 2 without exactly one line on stderr"; }
		grep -q -F "$path" "$err" ||
			{ cat "$err"; fail "$path: the message does not name the path"; }
		note "status 2 in ${took}s: $(cut -c1-240 "$err")"
		return 0
	fi
	[ "$expect" = error ] &&
		{ cat "$err"; fail "$path: status $status, an error (2) was expected"; }
	[ -s "$out" ] || fail "$path: status $status but no report"
	incomplete=$(python3 - "$out" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
ids = [f["id"] for f in r["findings"]]
print("yes" if "trace-incomplete" in ids or r["trace"]["read_error"] else "no")
EOF
) || fail "$path: the JSON report does not parse"
	case $expect in
	incomplete | either)
		[ "$incomplete" = yes ] ||
			{ cat "$err"; fail "$path: a report that does not say it is incomplete"; } ;;
	esac
	note "status $status in ${took}s, incomplete: $incomplete$(
		[ -s "$err" ] && echo "; stderr: $(head -c 200 "$err")")"
}

# json EXPRESSION: evaluates a Python expression over the last report `r`.
json() {
	python3 - "$work/$casename.json" "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
findings = [f["id"] for f in r["findings"]]
t = r["trace"]
value = eval(sys.argv[2])
print(value)
sys.exit(0 if value else 1)
EOF
}

expect_json() {
	json "$1" >/dev/null || fail "$2 (${1}: $(json "$1" 2>&1 | tail -n 1))"
}

case_empty_dir() {
	mkdir -p "$work/empty"
	report error "$work/empty"
	grep -q "no trace under" "$err" || fail "unexpected message"
}

case_no_trace() {
	mkdir -p "$work/no_trace/sub/deeper"
	echo "not a trace" >"$work/no_trace/readme.txt"
	"$damage" random "$work/no_trace/sub/channel0_0" 4096 1
	ln -sfn .. "$work/no_trace/sub/deeper/loop" # a link loop is not followed
	report error "$work/no_trace"
	report error "$work/no_trace/readme.txt"
	report error "$work/does-not-exist"
}

case_random_stream() {
	need_traces
	for seed in 1 2 3 4 5; do
		dir=$(copy random_stream sharded)
		for f in $(streams "$dir"); do
			"$damage" random "$f" 4096 "$seed$(basename "$f" | tr -dc 0-9)"
		done
		report either "$work/random_stream"
	done
}

case_garbage_stream() {
	need_traces
	# Bytes changed past the packet headers: events decode into nonsense,
	# or into other values.
	for seed in 11 12 13 14 15 16 17 18; do
		dir=$(copy garbage_stream sharded)
		f=$dir/$(largest_stream "$dir")
		"$damage" flip "$f" 8 "$seed" 128
		report any "$work/garbage_stream"
	done
}

case_unwritten_streams() {
	need_traces
	# A session still recording: metadata written, every stream file
	# empty (the consumer has not written a packet out). One line saying
	# the session has not ended, not "was it recorded with accwatch-run?".
	dir=$(copy unwritten_streams sharded)
	for f in $(streams "$dir"); do
		: >"$f"
	done
	report error "$work/unwritten_streams"
	grep -q "holds its metadata but no event yet: its LTTng session has not ended" "$err" ||
		fail "the unwritten trace's error does not say its session has not ended: $(cat "$err")"
}

case_truncated_stream() {
	need_traces
	for offset in 1 17 31 32 64 100 555 1024 2048 3000 4095; do
		dir=$(copy truncated_stream sharded)
		f=$dir/$(largest_stream "$dir")
		truncate -s "$offset" "$f"
		report either "$work/truncated_stream"
	done
}

case_truncated_packets() {
	need_traces
	# The discards trace has streams of several packets (4 KiB each): cut
	# at a packet boundary (babeltrace2 reads that without a word; the
	# LTTng index tells) and inside later packets.
	for offset in 4096 8192 6000 12000; do
		dir=$(copy truncated_packets discards)
		f=$dir/$(largest_stream "$dir")
		[ "$(stat -c %s "$f")" -gt "$offset" ] || continue
		truncate -s "$offset" "$f"
		report either "$work/truncated_packets"
	done
}

case_corrupt_metadata() {
	need_traces
	# Cut inside a packet of the packetized metadata (babeltrace2 2.0
	# loops forever on it), at packet boundaries, emptied, random, and
	# with bytes of its TSDL text changed.
	for cut in 1 36 37 100 2000 4095 5000; do
		dir=$(copy corrupt_metadata sharded)
		truncate -s "$cut" "$dir/metadata"
		report error "$work/corrupt_metadata"
	done
	for cut in 4096 8192 12288; do # whole packets: valid, text cut short
		dir=$(copy corrupt_metadata sharded)
		truncate -s "$cut" "$dir/metadata"
		report either "$work/corrupt_metadata"
	done
	dir=$(copy corrupt_metadata sharded)
	: >"$dir/metadata"
	report error "$work/corrupt_metadata"
	dir=$(copy corrupt_metadata sharded)
	"$damage" random "$dir/metadata" 16384 7
	report error "$work/corrupt_metadata"
	for seed in 21 22 23 24 25 26 27 28 29 30; do
		dir=$(copy corrupt_metadata sharded)
		"$damage" flip "$dir/metadata" 4 "$seed" 40
		report any "$work/corrupt_metadata"
	done
}

case_special_files() {
	need_traces
	# FIFOs where files belong: opening one blocks until a writer comes.
	dir=$(copy special_files sharded)
	f=$(largest_stream "$dir")
	rm "$dir/index/$f.idx"
	mkfifo "$dir/index/$f.idx"
	report error "$work/special_files"
	dir=$(copy special_files sharded)
	rm "$dir/$f"
	mkfifo "$dir/$f"
	report error "$work/special_files"
	dir=$(copy special_files sharded)
	rm "$dir/metadata"
	mkfifo "$dir/metadata"
	report error "$dir/metadata"
}

case_output_into_trace() {
	need_traces
	# -o naming a file of the trace being read (its metadata, a stream's
	# index) is refused before anything is read or written; the trace
	# stays whole and reads as before. A file beside the trace is fine.
	dir=$(copy output_into_trace sharded)
	before=$(cat "$dir/metadata" "$dir"/index/* | cksum)
	for target in "$dir/metadata" "$dir/index/new.idx"; do
		"$report" -o "$target" "$work/output_into_trace" 2>"$work/output.err"
		[ $? = 2 ] || fail "-o $target: not refused"
		grep -q "among the files of a trace being read" "$work/output.err" ||
			fail "-o $target: $(cat "$work/output.err")"
	done
	[ ! -e "$dir/index/new.idx" ] || fail "the refused report was written"
	[ "$(cat "$dir/metadata" "$dir"/index/* | cksum)" = "$before" ] ||
		fail "the trace changed"
	"$report" -o "$work/output_into_trace/report.txt" \
		"$work/output_into_trace" >/dev/null 2>&1
	[ $? -le 1 ] || fail "a report beside the trace was refused"
	report report "$work/output_into_trace"
}

case_foreign_provider() {
	need_traces
	report error "$traces/foreign"
	grep -q "no accwatch events" "$err" || fail "unexpected message"
}

case_mixed_providers() {
	need_traces
	report report "$traces/mixed"
	expect_json 't["foreign_events"] > 0' "the libc events are not counted as foreign"
	expect_json 't["accwatch_events"] == t["events"] - t["foreign_events"]' \
		"the counts do not add up"
	expect_json 'not [f for f in findings if f not in ("padding",)]' \
		"findings on a sharded run"
}

case_absurd_values() {
	need_traces
	report report "$traces/absurd"
	expect_json 'r["loaders"][0]["dataset_len"] == 2**62' "dataset_len"
	expect_json 'max(c["samples"] for e in r["loaders"][0]["epochs"] for c in e["ranks"]) == 10**7' \
		"the batch of 10^7 indices"
	expect_json 't["index_unrepresentable"] == 3' "the 3 negative indices not counted"
	expect_json '"index-range" in findings' "no index-range finding"
}

case_bad_settings() {
	need_traces
	# ACCWATCH_REPORT_* values that make no sense: exit 2 and one line
	# naming the variable and the range, before any reading; the default
	# (unset), 0 (no limit) and a sane value read the trace.
	for setting in ACCWATCH_REPORT_TIMEOUT=abc ACCWATCH_REPORT_TIMEOUT=-3 \
		ACCWATCH_REPORT_TIMEOUT=99999999999999999999 ACCWATCH_REPORT_MEMORY=1 \
		ACCWATCH_REPORT_MEMORY=lots ACCWATCH_REPORT_MEMORY=; do
		err=$work/bad_settings.err
		env "$setting" "$report" --format json "$traces/sharded" >/dev/null 2>"$err"
		status=$?
		[ $status = 2 ] || fail "$setting: exit $status, expected 2"
		[ "$(wc -l <"$err")" -eq 1 ] || { cat "$err"; fail "$setting: not one line"; }
		grep -q -F "${setting%%=*}=" "$err" || { cat "$err"; fail "$setting: the variable is not named"; }
		note "$setting: $(cat "$err")"
	done
	for setting in ACCWATCH_REPORT_TIMEOUT=0 ACCWATCH_REPORT_TIMEOUT=30 ACCWATCH_REPORT_MEMORY=0 \
		ACCWATCH_REPORT_MEMORY=512; do
		report report "$traces/sharded" "$setting"
	done
}

case_two_runs() {
	need_traces
	# Two recordings under one directory, one run each: separate runs,
	# one report each. Without --run: one line naming both and the
	# option; with --run all, read together, the runs told apart.
	report error "$traces/two_runs"
	grep -q -F -e "2 runs, each a recording of its own" "$err" &&
		grep -q -F -e "--run ID" "$err" ||
		fail "the two-runs error does not name the runs and --run: $(cat "$err")"
	report_opts="--run all"
	report report "$traces/two_runs"
	report_opts=""
	expect_json 'len(t["runs"]) == 2 and t["trace_dirs"] == 2' "two runs in two traces"
	# Two runs in one trace (a session without the run filter): unrelated
	# programs. No report without --run: one line naming the trace, both
	# runs and the option. (The session also catches accwatch-run
	# recordings of other tests running meanwhile: more runs, never fewer.)
	report error "$traces/mixed_runs"
	for word in 4343 4344 "--run ID"; do
		grep -q -F -e "$word" "$err" || fail "the mixed-runs error does not say $word"
	done
	report_opts="--run 4344"
	report report "$traces/mixed_runs"
	expect_json 't["runs"] == [4344] and t["other_run_events"] > 0' "--run 4344 read other runs"
	expect_json '"unsharded" in findings' "run 4344 (unsharded) has no unsharded finding"
	report_opts="--run 4343"
	report report "$traces/mixed_runs"
	expect_json 't["runs"] == [4343]' "--run 4343 read other runs"
	expect_json 'not [f for f in findings if f != "padding"]' "findings on run 4343 (sharded)"
	report_opts="--run all"
	report report "$traces/mixed_runs"
	expect_json '{4343, 4344} <= set(t["runs"]) and t["other_run_events"] == 0' "--run all"
	report_opts="--run 4345"
	report error "$traces/mixed_runs"
	for word in "no run 4345 in" 4343 4344; do
		grep -q -F -e "$word" "$err" || fail "the unknown run's error does not say $word"
	done
	report_opts=""
}

case_discards() {
	need_traces
	said=$(sed -n 's/.*warning: \([0-9][0-9]*\) events were discarded.*/\1/p' \
		"$traces/discards.err")
	if [ -z "$said" ] || [ "$said" -eq 0 ]; then
		fail "accwatch-run reported no discards: $(cat "$traces/discards.err")"
	fi
	report incomplete "$traces/discards"
	expect_json "t['discarded_events'] == $said" \
		"the report's discarded count differs from the session daemon's ($said)"
	expect_json 'sum(d["events"] for d in t.get("discarded_by_stream", [])) == t["discarded_events"]' \
		"the per-stream discards do not add up to the total"
	expect_json 'sum(d["messages"] for d in t.get("discarded_by_stream", [])) == t["discarded_events_messages"]' \
		"the per-stream discard records do not add up"
	if grep -q -a trace-incomplete "$report"; then
		expect_json '"trace-incomplete" in findings' "no trace-incomplete finding"
	else
		note "this accwatch-report has no trace-incomplete finding yet"
	fi
}

# The watchdog stopped a decoder that looped, or (babeltrace2 2.1 and later,
# which no longer loop on this damage) the decoder refused the trace with a
# message naming what: either way exit 2, never a hang.
watchdog_or_refused() { # watchdog_or_refused WHAT-THE-REFUSAL-NAMES
	if grep -q "made no progress for 2 s" "$err"; then
		return
	fi
	case $(babeltrace2 --version 2>/dev/null | head -n 1) in
	*" 2.0."*) fail "babeltrace2 2.0 loops here: not the watchdog's message" ;;
	esac
	grep -qi "$1" "$err" || fail "neither the watchdog's message nor a refusal naming $1"
	note "babeltrace2 $(babeltrace2 --version | awk 'NR == 1 {print $2}') refused it: $(head -c 160 "$err")"
}

case_watchdog() {
	need_traces
	# Two ways babeltrace2 2.0 loops for good. The metadata cut inside a
	# packet (with the metadata check skipped, which catches it first):
	dir=$(copy watchdog sharded)
	truncate -s 2000 "$dir/metadata"
	report error "$work/watchdog" ACCWATCH_REPORT_NO_METADATA_CHECK=1 \
		ACCWATCH_REPORT_TIMEOUT=2
	watchdog_or_refused metadata
	# A stream packet claiming a size of 0 bits, without the LTTng index
	# (which babeltrace2 trusts instead): content_size and packet_size of
	# LTTng's packet context are at bytes 48 and 56 of a packet.
	dir=$(copy watchdog sharded)
	rm -rf "$dir/index"
	f=$dir/$(largest_stream "$dir")
	if ! "$damage" put64 "$f" 48 0 || ! "$damage" put64 "$f" 56 0; then
		fail "damaging $f"
	fi
	report error "$work/watchdog" ACCWATCH_REPORT_TIMEOUT=2
	watchdog_or_refused "$(basename "$f")"
}

case_babeltrace_crash() {
	need_traces
	# A sequence length of 2^32-1: babeltrace2 2.0 crashes (its own bug);
	# a huge one that fits: it allocates a field per element.
	lengths=0xffffffff
	# Under ASan no memory limit holds babeltrace2 (ASan's shadow memory
	# exceeds any rlimit): the allocation storm would take the machine.
	[ "${AW_SANITIZED:-0}" = 1 ] || lengths="$lengths 0x0fffffff"
	for length in $lengths; do
		dir=$(copy babeltrace_crash sharded)
		found=no
		for f in $(streams "$dir"); do
			"$damage" seqlen "$f" "$length" 2>/dev/null && found=yes
		done
		[ $found = yes ] || fail "no batch 0, 2, ..., 14 in the sharded trace"
		report either "$work/babeltrace_crash" ACCWATCH_REPORT_MEMORY=256
	done
}

cleanup() {
	rm -rf "$work"
}

case ${1:-} in
setup) setup ;;
cleanup) cleanup ;;
case)
	casename=${2:?case name}
	echo "case $casename"
	"case_$casename"
	echo "PASS: $casename"
	;;
*)
	echo "usage: robustness.sh setup|cleanup|case NAME" >&2
	exit 2
	;;
esac
