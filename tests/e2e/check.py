"""Runs one end-to-end scenario for real and checks accwatch's verdict: N ranks
of ranks.py under accwatch-run (real LTTng session), then accwatch-report
--format json, compared with what each rank wrote that it read."""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
PYTHON = "/usr/bin/python3"


class Failure(Exception):
    pass


def expect(cond, message):
    if not cond:
        raise Failure(message)


def record(build, case, nproc, work):
    trace, truth = os.path.join(work, "trace"), os.path.join(work, "truth")
    os.makedirs(truth)
    cmd = [os.path.join(build, "bin", "accwatch-run"), "-q", "-o", trace, "--",
           PYTHON, os.path.join(SOURCE, "examples", "launch.py"), "--nproc", str(nproc),
           os.path.join(HERE, "ranks.py"), "--case", case, "--truth", truth]
    run = subprocess.run(cmd, timeout=600)
    expect(run.returncode == 0, f"recorded run exited {run.returncode}: {' '.join(cmd)}")
    return trace, truth


def report(build, trace):
    cmd = [os.path.join(build, "bin", "accwatch-report"), "--format", "json", trace]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    expect(run.returncode in (0, 1), f"accwatch-report exited {run.returncode}: {run.stderr.strip()}")
    try:
        doc = json.loads(run.stdout)
    except ValueError as e:
        raise Failure(f"accwatch-report printed no JSON ({e}): {run.stdout[:400]!r}")
    return run.returncode, doc


def check_counts(doc, truths):
    """Every rank's batches, samples and unique samples per epoch equal what it read."""
    ranks = sorted(t["rank"] for t in truths)
    expect(doc["world_size"] == len(truths), f"world_size {doc['world_size']} != {len(truths)}")
    expect(sorted(doc["ranks"]) == ranks, f"ranks {doc['ranks']} != {ranks}")
    for truth in truths:
        for known in truth["loaders"]:
            loaders = [l for l in doc["loaders"] if os.path.basename(str(l["site"])) == known["site"]]
            expect(len(loaders) == 1, f"report has {len(loaders)} loaders at {known['site']}: "
                   f"{[l['site'] for l in doc['loaders']]}")
            epochs = {e["epoch"]: e for e in loaders[0]["epochs"]}
            for read in known["epochs"]:
                expect(read["epoch"] in epochs, f"epoch {read['epoch']} missing from report")
                row = [r for r in epochs[read["epoch"]]["ranks"] if r["rank"] == truth["rank"]]
                expect(len(row) == 1, f"epoch {read['epoch']}: rank {truth['rank']} not in report")
                samples = [i for b in read["batches"] for i in b]
                want = {"batches": len(read["batches"]), "samples": len(samples), "unique": len(set(samples))}
                got = {k: row[0][k] for k in want}
                expect(got == want, f"rank {truth['rank']} epoch {read['epoch']}: report {got}, read {want}")


def check_worker_pids(trace, truth_dir, truths):
    """worker_fetch events carry the pids of the workers themselves."""
    workers = {int(os.path.basename(p).split("-")[1]) for p in glob.glob(os.path.join(truth_dir, "worker-*"))}
    expect(workers, "the scenario started no workers")
    text = subprocess.run(["babeltrace2", trace], capture_output=True, text=True, check=True).stdout
    pids = {int(m.group(1)) for m in re.finditer(r"accwatch:worker_fetch:.*?pid = (\d+)", text)}
    expect(pids, "no worker_fetch events in the trace")
    expect(pids <= workers, f"worker_fetch pids {sorted(pids - workers)} are not worker pids {sorted(workers)}")
    expect(not pids & {t["pid"] for t in truths}, "worker_fetch events carry a rank's pid")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", required=True, help="the CMake build directory")
    parser.add_argument("--case", required=True)
    parser.add_argument("--nproc", type=int, default=4)
    parser.add_argument("--expect", nargs="*", default=[], help="the exact error and warning ids")
    parser.add_argument("--workers", action="store_true", help="also check the workers' pids")
    opts = parser.parse_args()

    work = tempfile.mkdtemp(prefix=f"accwatch-e2e-{opts.case}-")
    try:
        trace, truth_dir = record(opts.build, opts.case, opts.nproc, work)
        truths = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(truth_dir, "rank-*.json")))]
        expect(len(truths) == opts.nproc, f"{len(truths)} of {opts.nproc} ranks wrote their truth")
        status, doc = report(opts.build, trace)
        found = sorted({f["id"] for f in doc["findings"] if f["severity"] in ("error", "warning")})
        expect(found == sorted(set(opts.expect)), f"findings {found}, expected {sorted(set(opts.expect))}: "
               + "; ".join(f["message"] for f in doc["findings"]))
        errors = any(f["severity"] == "error" for f in doc["findings"])
        expect(status == (1 if errors else 0), f"accwatch-report exited {status} with errors={errors}")
        check_counts(doc, truths)
        if opts.workers:
            check_worker_pids(trace, truth_dir, truths)
    except (Failure, subprocess.TimeoutExpired) as e:
        print(f"FAIL {opts.case}: {e}\n  kept: {work}", file=sys.stderr)
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print(f"ok {opts.case}: findings {found}")


if __name__ == "__main__":
    main()
