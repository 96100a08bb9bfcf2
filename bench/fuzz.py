#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs every libFuzzer harness of tests/fuzz for some minutes each and
prints a table: executions, executions per second, coverage (libFuzzer's
`cov:` edges and `ft:` features from its last status line), corpus size
and crashes (crash-, leak-, timeout- and oom- files). Not part of CI
(scripts/sanitize.sh runs fuzz_ingest for a fixed number of inputs).

    bench/fuzz.py MINUTES [--build DIR] [--work DIR] [--targets a,b]
                  [--minutes-of NAME=MINUTES]...

Builds DIR (default build-fuzz: clang, ACCWATCH_FUZZ=ON) when it has no
fuzz binaries. Each target's corpus starts from tests/fuzz/seeds/NAME and
regressions/NAME and is kept in WORK/NAME/corpus between runs; crashing
inputs land in WORK/NAME/artifacts. A run stopped by a crash is started
again until its minutes are spent, so one crash does not end a target."""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
FUZZ = os.path.join(SOURCE, "tests", "fuzz")

# Per target: the largest input, the per-input timeout (s), and the
# malloc limit (MiB). fuzz_ctf's babeltrace2 child inherits libFuzzer's
# malloc hook, which would take a damaged trace's huge allocation there
# for the harness's own: the harness caps the child's data instead.
TARGETS = {
    "ingest": (65536, 10, 512),
    "render": (65536, 20, 512),
    "ctf": (65536, 30, 1 << 20),
    "dirs": (4096, 10, 512),
    "metadata": (8192, 10, 512),
    "progress": (4096, 10, 512),
}


def build(build_dir):
    if all(os.path.exists(os.path.join(build_dir, "bin", "fuzz_" + t)) for t in TARGETS):
        return
    env = dict(os.environ, CC="clang")
    subprocess.run(["cmake", "-S", SOURCE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                    "-DACCWATCH_FUZZ=ON"], env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build_dir, "-j2"] +
                   [a for t in TARGETS for a in ("--target", "fuzz_" + t)], check=True,
                   stdout=subprocess.DEVNULL)


def run_target(name, binary, work, seconds):
    """Fuzzes one target for seconds; returns its row of the table."""
    max_len, timeout, malloc_mb = TARGETS[name]
    corpus = os.path.join(work, name, "corpus")
    artifacts = os.path.join(work, name, "artifacts")
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(artifacts, exist_ok=True)
    for kind in ("seeds", "regressions"):
        for f in glob.glob(os.path.join(FUZZ, kind, name, "*")):
            shutil.copy(f, corpus)
    log_path = os.path.join(work, name, "fuzz.log")
    execs, cov, ft, runs = 0, "?", "?", 0
    end = time.monotonic() + seconds
    with open(log_path, "w") as log:
        while time.monotonic() < end - 5:
            left = int(end - time.monotonic())
            cmd = [binary, corpus, f"-max_total_time={left}", f"-max_len={max_len}",
                   f"-timeout={timeout}", "-rss_limit_mb=2048", f"-malloc_limit_mb={malloc_mb}",
                   "-print_final_stats=1", f"-artifact_prefix={artifacts}/", f"-seed={runs + 1}"]
            dict_file = os.path.join(FUZZ, "dicts", name + ".dict")
            if os.path.exists(dict_file):
                cmd.append(f"-dict={dict_file}")
            env = dict(os.environ, ASAN_OPTIONS="halt_on_error=1:detect_leaks=1",
                       UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
            out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True, errors="replace").stdout
            log.write(out)
            runs += 1
            done = re.findall(r"^stat::number_of_executed_units: *(\d+)", out, re.M)
            status = re.findall(r"^#(\d+)\s.*?cov: (\d+) ft: (\d+)", out, re.M)
            if done:
                execs += int(done[-1])
            elif status:
                execs += int(status[-1][0])
            if status:
                cov, ft = status[-1][1], status[-1][2]
    crashes = [f for f in os.listdir(artifacts)
               if f.split("-")[0] in ("crash", "leak", "timeout", "oom", "slow")]
    return {"target": "fuzz_" + name, "execs": execs, "per_s": execs / seconds, "cov": cov,
            "ft": ft, "corpus": len(os.listdir(corpus)), "crashes": len(crashes)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("minutes", type=float, help="minutes per target")
    parser.add_argument("--build", default=os.path.join(SOURCE, "build-fuzz"))
    parser.add_argument("--work", default=None, help="corpora and artifacts (BUILD/fuzz-work)")
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--minutes-of", action="append", default=[], metavar="NAME=MINUTES",
                        help="another time for one target (the fast ones make most executions)")
    args = parser.parse_args()
    minutes = {name: args.minutes for name in TARGETS}
    for item in args.minutes_of:
        name, _, value = item.partition("=")
        if name not in TARGETS:
            sys.exit(f"fuzz.py: no target {name}: one of {', '.join(TARGETS)}")
        minutes[name] = float(value)
    build(args.build)
    work = args.work or os.path.join(args.build, "fuzz-work")
    rows = []
    for name in args.targets.split(","):
        if name not in TARGETS:
            sys.exit(f"fuzz.py: no target {name}: one of {', '.join(TARGETS)}")
        binary = os.path.join(args.build, "bin", "fuzz_" + name)
        print(f"fuzz.py: fuzz_{name} for {minutes[name]:g} min", file=sys.stderr, flush=True)
        rows.append(run_target(name, binary, work, minutes[name] * 60))
    print("| target | executions | exec/s | cov | ft | corpus | crashes |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['target']} | {r['execs']:,} | {r['per_s']:,.0f} | {r['cov']} | {r['ft']} "
              f"| {r['corpus']} | {r['crashes']} |")
    total = sum(r["execs"] for r in rows)
    print(f"| all | {total:,} | | | | | {sum(r['crashes'] for r in rows)} |")
    return 1 if any(r["crashes"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
