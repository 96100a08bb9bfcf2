# SPDX-License-Identifier: MIT
"""Runs one end-to-end scenario for real and checks accwatch's verdict: N ranks
of ranks.py (running scenarios/<case>.py) under accwatch-run (real LTTng session), then accwatch-report
--format json, compared with what each rank wrote that it read (the truth,
format in scenario_kit.py's docstring).

Stacks (--stack): `debian` runs the ranks on Debian's torch (/usr/bin/python3,
or --python) with the accelerate of .debian-site (--site) on PYTHONPATH,
started by examples/launch.py (Debian's torchrun 1.13 does not run on
Python 3.11); `venv` runs them on the venv's PyPI torch (--python), started
by the real launchers: `torchrun --nproc-per-node N`, and for --accelerate
cases `accelerate launch --multi_gpu --num_processes N` (on a machine without
GPUs that is accelerate's multi-CPU launch over gloo; `--cpu` would start one
process). --launcher overrides the choice; `self`: the rank program
starts its own ranks (Lightning's launcher: lightning_ranks.py).

Checked:
  - the error and warning ids not suppressed are exactly --expect (infos
    are free), and the ids of the suppressed findings exactly --suppressed
    (each kept in the JSON with how it was suppressed, and counted in the
    summary);
  - accwatch-report's exit status matches (1 with errors not suppressed,
    else 0);
  - every --finding-ranks / --mention holds;
  - world size and ranks (processes that claim one rank add up, as the
    report adds them);
  - per truth loader (site basename:line + ordinal): for every rank and epoch
    the script iterated, batches / samples / unique equal what it read, the
    epochs the report has for the rank are exactly those, and the rank's
    `exhausted` flag (when the report has one) says whether the loop ran to
    the end; a loader the rank never iterated has no row for it; its len()
    answers are among the loader's len_reported;
  - no report loader has epoch rows that no truth loader accounts for;
  - a worker the truth saw die is named (rank, and worker id or pid) by a
    worker-died finding that quotes the index whose read killed it, inside
    the fetch it was in the middle of;
  - a worker the truth saw hang is named by a worker-stuck finding of its
    rank that quotes exactly the indices of the fetch it hung in;
  - a rank that ended itself is named by a rank-died finding (its end
    recorded: by a launcher that imported torch, --launcher launch-torch,
    or by the rank itself, exit() or os._exit()) or the trace-incomplete
    evidence (a kill nothing recorded), with the ordinal and the exact
    indices of its last batch drawn, and the exception that ended it;
  - with --workers, worker_fetch/item_fetch events carry worker pids.
All problems are listed, not just the first. The work directory (trace,
truth, report.json, report.txt) is kept on failure.

Each scenario is one file, scenarios/<case>.py: what it does (run), the
findings expected (EXPECT), the stacks it runs on (STACKS) and the other
options below (OPTIONS), EXPECT and OPTIONS per stack where they differ;
options given here come after those of the file.

    check.py --build BUILD --case prepare_ignored
    check.py --case worker_killed --plain     # the rank program alone, no accwatch"""
import argparse
import ast
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import signal
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
LAUNCHERS = ("launch", "launch-torch", "torchrun", "accelerate", "self")


class Failure(Exception):
    pass


class Problems:
    """Collects what is wrong, so one run tells everything."""

    def __init__(self):
        self.items = []

    def expect(self, cond, message):
        if not cond:
            self.items.append(message)
        return cond

    def fatal(self):
        if self.items:
            raise Failure("\n".join(self.items))


def expect(cond, message):
    if not cond:
        raise Failure(message)


def run_env(opts):
    env = dict(os.environ)
    if opts.site:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (opts.site, env.get("PYTHONPATH")) if p)
    if opts.stack == "debian":
        # Debian's torch 2.x is built without libuv, the TCPStore default
        # since torch 2.4: init_process_group fails unless told (harmless on 1.13).
        env["USE_LIBUV"] = "0"
    for item in opts.env:
        name, sep, value = item.partition("=")
        expect(sep and name, f"--env {item!r}: NAME=VALUE expected")
        env[name] = value
    return env


# The launcher run by a Python that imported torch first, as torchrun and
# accelerate launch are: the preload then records the ranks' ends it reaps.
LAUNCH_WITH_TORCH = ("import runpy, sys, torch.utils.data; sys.argv = sys.argv[1:]; "
                     "runpy.run_path(sys.argv[0], run_name='__main__')")

# --jobs N: the launcher's command run N times one after the other in one
# recording (a job, then a second job resuming from its checkpoint); each
# job's processes see their index in SEQUENCE_ENV.
SEQUENCE_ENV = "ACCWATCH_E2E_SEQUENCE"
IN_SEQUENCE = ("import os, subprocess, sys\n"
               "for job in range(int(sys.argv[1])):\n"
               "    status = subprocess.call(sys.argv[2:], env=dict(os.environ, %s=str(job)))\n"
               "    if status:\n"
               "        sys.exit(status if status > 0 else 128 - status)\n" % SEQUENCE_ENV)


def launcher(opts):
    if opts.launcher != "auto":
        return opts.launcher
    if opts.stack == "debian":
        return "launch"
    return "accelerate" if opts.accelerate else "torchrun"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def venv_program(opts, name):
    """A console script of the --python's environment (torchrun, accelerate)."""
    path = os.path.join(os.path.dirname(opts.python), name)
    expect(os.access(path, os.X_OK), f"{path} not found: --launcher {name} needs the venv stack's "
           f"{name} beside --python (scripts/setup.sh makes it)")
    return path


def rank_command(opts, truth):
    script = [os.path.join(HERE, opts.script), "--case", opts.case, "--truth", truth]
    nproc, how = str(opts.nproc), launcher(opts)
    if opts.spawned:  # the launcher starts one process, which spawns the ranks
        script, nproc = script + ["--ranks", nproc], "1"
    # Tests run in parallel: a free rendezvous port each (torchrun --standalone
    # picks one itself; both default to 29500 otherwise).
    if how == "torchrun":
        restarts = ["--max-restarts", str(opts.max_restarts)] if opts.max_restarts else []
        return [venv_program(opts, "torchrun"), "--standalone", "--nproc-per-node", nproc] + restarts + script
    if how == "accelerate":
        return [venv_program(opts, "accelerate"), "launch", "--multi_gpu", "--num_processes", nproc,
                "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
                "--main_process_port", str(free_port())] + script
    if how == "self":  # the rank program starts its own ranks (Lightning's launcher)
        return [opts.python] + script + ["--nproc", nproc]
    python = [opts.python, "-c", LAUNCH_WITH_TORCH] if how == "launch-torch" else [opts.python]
    return python + [os.path.join(SOURCE, "examples", "launch.py"), "--nproc", nproc] + script


# ctest gives a scenario 300 s (TIMEOUT in CMakeLists.txt); the run's own
# deadline comes well before, so that a hang is described, not just killed.
DEADLINE = 240
# Set in the environment of every process of the run: found again at the
# deadline, orphans included.
JOB_MARK = "ACCWATCH_E2E_JOB"
# The shared session daemons (never signalled) and accwatch-run with its
# guardian (they end the session once the command is gone).
SPARED = ("lttng-", "accwatch-run")


class Tee(threading.Thread):
    """Copies the run's stderr to ours as it comes, and keeps it: the
    faulthandler dumps at the deadline are read back from it."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream, self.data, self.lock = stream, bytearray(), threading.Lock()
        self.arrived = {}  # a --live line -> the wall-clock time it came
        self.start()

    def note_lines(self, start):
        """The time the live lines completed by the data from start came."""
        now = time.time()
        begin = self.data.rfind(b"\n", 0, start) + 1
        for line in bytes(self.data[begin:]).split(b"\n")[:-1]:
            if line.startswith(b"accwatch live:"):
                self.arrived.setdefault(line.decode(errors="replace"), now)

    def run(self):
        while True:
            chunk = os.read(self.stream.fileno(), 65536)
            if not chunk:
                return
            with self.lock:
                self.data += chunk
                self.note_lines(len(self.data) - len(chunk))
            sys.stderr.buffer.write(chunk)
            sys.stderr.buffer.flush()

    def size(self):
        with self.lock:
            return len(self.data)

    def since(self, offset):
        with self.lock:
            return bytes(self.data[offset:]).decode(errors="replace")


def read_proc(pid, name):
    try:
        with open(f"/proc/{pid}/{name}", "rb") as f:
            return f.read()
    except OSError:
        return b""


def proc_stat(pid):
    """(state, ppid, comm) of a process, None when it is gone."""
    text = read_proc(pid, "stat").decode(errors="replace")
    if ")" not in text:
        return None
    comm = text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[1]), comm


def job_processes(root, mark):
    """{pid: (ppid, comm)} of the run: root's descendants and every process
    whose environment carries mark."""
    found, children, marked = {}, {}, set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        pid, stat = int(entry), proc_stat(int(entry))
        if stat is None:
            continue
        found[pid] = stat[1:]
        children.setdefault(stat[1], []).append(pid)
        if mark in read_proc(pid, "environ").split(b"\0"):
            marked.add(pid)
    todo, job = [root] + sorted(marked), set()
    while todo:
        pid = todo.pop()
        if pid in found and pid not in job:
            job.add(pid)
            todo += children.get(pid, [])
    return {pid: found[pid] for pid in sorted(job)}


def describe_process(pid, ppid, comm):
    """What the kernel says the process waits on: state, wchan of each
    thread, the kernel stack (readable by root)."""
    cmdline = read_proc(pid, "cmdline").replace(b"\0", b" ").decode(errors="replace").strip()
    status = dict(l.split(":", 1) for l in read_proc(pid, "status").decode(errors="replace").splitlines() if ":" in l)
    waits = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        tids = []
    for tid in tids:
        wchan = read_proc(pid, f"task/{tid}/wchan").decode(errors="replace") or "-"
        waits[wchan] = waits.get(wchan, 0) + 1
    kernel = [l.split("] ", 1)[-1] for l in read_proc(pid, "stack").decode(errors="replace").splitlines()]
    lines = [f"pid {pid} (ppid {ppid}, {comm}), state {status.get('State', '?').strip()}, wchan "
             f"{read_proc(pid, 'wchan').decode(errors='replace') or '-'}: {cmdline[:300]}",
             f"  {len(tids)} threads waiting in: "
             + ", ".join(f"{w} x{n}" for w, n in sorted(waits.items(), key=lambda i: -i[1]))]
    if kernel:
        lines.append("  kernel stack: " + " < ".join(kernel[:8]))
    return lines


def wait_gone(pid, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        stat = proc_stat(pid)
        if stat is None or stat[0] in "ZX":
            return
        time.sleep(0.05)


def wait_quiet(said, seconds):
    """Until the run's stderr stops growing (the dump read through)."""
    deadline, size = time.monotonic() + seconds, -1
    while time.monotonic() < deadline and said.size() != size:
        size = said.size()
        time.sleep(0.2)


def python_stacks(pid, said):
    """The process's Python stacks, every thread, by faulthandler
    (PYTHONFAULTHANDLER in the run's environment): SIGABRT, then SIGCONT to
    this one process alone, the others stopped, so that its dump is all that
    comes on the shared stderr. The process dies of it."""
    start = said.size()
    try:
        os.kill(pid, signal.SIGABRT)
        os.kill(pid, signal.SIGCONT)
    except OSError:
        return []
    wait_gone(pid, 5)
    wait_quiet(said, 2)
    return ["  " + l for l in said.since(start).splitlines()
            if l.strip() and not l.startswith(("Extension modules:", "accwatch-run:"))]


def dump_job(job, mark, said):
    """Past the deadline: what every process of the run was waiting on
    (kernel state and wchan first, as found; then the Python stacks, the
    processes stopped meanwhile), and the run killed. accwatch-run and the
    session daemons are described, never signalled: accwatch-run ends the
    session once its command is gone."""
    processes = job_processes(job.pid, mark)
    lines = []
    for pid, (ppid, comm) in processes.items():
        lines += describe_process(pid, ppid, comm)
    victims = [pid for pid, (_, comm) in processes.items() if not comm.startswith(SPARED)]
    for pid in victims:
        try:
            os.kill(pid, signal.SIGSTOP)
        except OSError:
            pass
    def depth(pid):
        return 1 + depth(processes[pid][0]) if processes[pid][0] in processes else 0

    # Children first: accwatch-run ends the command's process group once
    # the command is gone, and a parent may kill its children when one dies.
    for pid in sorted(victims, key=depth, reverse=True):
        try:
            exe = os.path.basename(os.readlink(f"/proc/{pid}/exe"))
        except OSError:
            exe = ""
        if exe.startswith("python"):
            lines += [f"Python stacks of pid {pid} ({processes[pid][1]}):"] + python_stacks(pid, said)
    for pid in victims:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        job.wait(timeout=60)
    except subprocess.TimeoutExpired:
        job.kill()
        job.wait()
    return lines


def record(opts, work):
    trace, truth = os.path.join(work, "trace"), os.path.join(work, "truth")
    os.makedirs(truth)
    cmd = rank_command(opts, truth)
    if opts.jobs > 1:
        cmd = [sys.executable, "-c", IN_SEQUENCE, str(opts.jobs)] + cmd
    if not opts.plain:
        live = ["--live"] if opts.live else []
        cmd = [os.path.join(opts.build, "bin", "accwatch-run"), "-q", *live, "-o", trace, "--"] + cmd
    env = run_env(opts)
    env[JOB_MARK] = work
    # Python's own fault handler, for the deadline's dumps: it prints every
    # thread's stack on SIGABRT even when one holds the GIL in C code.
    env["PYTHONFAULTHANDLER"] = "1"
    what = "plain" if opts.plain else "recorded"
    job = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE)
    said = Tee(job.stderr)
    try:
        returncode = job.wait(timeout=opts.timeout)
    except subprocess.TimeoutExpired:
        dump = dump_job(job, f"{JOB_MARK}={work}".encode(), said)
        raise Failure(f"the {what} run took more than {opts.timeout} s (a rank hanging?): {' '.join(cmd)}\n"
                      f"what its processes were waiting on:\n" + "\n".join("  " + l for l in dump))
    finally:
        said.join(2)  # an orphan may hold the pipe: it goes on copying
    expect(returncode == opts.status, f"{what} run exited {returncode} (expected {opts.status}): {' '.join(cmd)}")
    return trace, truth, said


# accwatch-run --live's line: "accwatch live: 12.3 s: ID (SEVERITY)[, LOADER
# (SITE)][, epoch E][, rank(s) R,R-R]".
LIVE_LINE = re.compile(r"^accwatch live: ([0-9.]+) s: ([a-z-]+) \((error|warning|info)\)"
                       r"(?:, (L\d+) \((.*?)(?:, attempt \d+)?\))?(?:, epoch (\d+))?(?:, ranks? ([0-9,-]+))?$")


def live_ranks(text):
    ranks = []
    for part in (text or "").split(","):
        if part:
            first, _, last = part.partition("-")
            ranks += range(int(first), int(last or first) + 1)
    return ranks


def check_live(said, doc, problems):
    """What --live printed while the job ran is a subset of the final
    report's findings: same id, loader and site, epoch and ranks."""
    sites = {l["id"]: l.get("site") for l in doc.get("loaders", [])}
    final = {(f["id"], f.get("loader"), f.get("epoch"), tuple(f.get("ranks") or []))
             for f in counted(doc["findings"])}
    lines = [l for l in said.splitlines() if l.startswith("accwatch live:")]
    for line in lines:
        m = LIVE_LINE.match(line)
        if not problems.expect(m, f"a --live line that does not read as one: {line!r}"):
            continue
        _, fid, _, loader, site, epoch, ranks = m.groups()
        key = (fid, loader, int(epoch) if epoch else None, tuple(live_ranks(ranks)))
        problems.expect(key in final, f"--live said {line!r}; the final report has no such finding:"
                        + "".join(f"\n  {k}" for k in sorted(final, key=str)))
        if loader:
            problems.expect(site == sites.get(loader), f"--live names {loader} at {site!r}, the report at "
                            f"{sites.get(loader)!r}")
    return len(lines)


def check_live_before(opts, said, truths, problems):
    """Each --live-before ID=E: a live line of ID for epoch E came before any
    rank ended epoch E (--live-before-end: before the last rank ended it),
    by the wall clock of the line's arrival and of the ranks' truth."""
    wanted = [(spec, min) for spec in opts.live_before] + [(spec, max) for spec in opts.live_before_end]
    for spec, which in wanted:
        fid, _, epoch = spec.partition("=")
        ends = [e["ended_at"] for t in truths for entry in t["loaders"] for e in entry["epochs"]
                if e["epoch"] == int(epoch) and "ended_at" in e]
        came = [at for line, at in said.arrived.items()
                if (m := LIVE_LINE.match(line)) and m.group(2) == fid and m.group(6) == epoch]
        if not problems.expect(ends and came, f"--live-before {spec}: no live line of it ({len(came)}) or no "
                               f"end of epoch {epoch} in the truth ({len(ends)})"):
            continue
        end = which(ends)
        print(f"live {fid} epoch {epoch}: the line came {end - min(came):.1f} s before the "
              f"{'first' if which is min else 'last'} rank ended the epoch")
        problems.expect(min(came) < end, f"--live-before {spec}: the line came {min(came) - end:.1f} s after the "
                        f"{'first' if which is min else 'last'} rank ended epoch {epoch}")


def report(opts, trace, work):
    cmd = [os.path.join(opts.build, "bin", "accwatch-report"), "--format", "json", trace]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    with open(os.path.join(work, "report.json"), "w") as f:
        f.write(run.stdout)
    text = subprocess.run(cmd[:1] + cmd[3:], capture_output=True, text=True, timeout=300)
    with open(os.path.join(work, "report.txt"), "w") as f:
        f.write(text.stdout + text.stderr)
    expect(run.returncode in (0, 1), f"accwatch-report exited {run.returncode}: {run.stderr.strip()}")
    try:
        doc = json.loads(run.stdout)
    except ValueError as e:
        raise Failure(f"accwatch-report printed no JSON ({e}): {run.stdout[:400]!r}")
    return run.returncode, doc


def describe(finding):
    ranks = ",".join(str(r) for r in finding.get("ranks") or [])
    epoch = finding.get("epoch")
    where = f"{finding.get('loader')}" + (f" epoch {epoch}" if epoch is not None else "")
    quiet = " suppressed" if finding.get("suppressed") else ""
    return f"[{finding['severity']}{quiet} {finding['id']} {where} ranks {ranks or '-'}] {finding.get('message', '')}"


def finding_text(finding):
    parts = [finding.get("message") or "", finding.get("fix") or ""]
    parts += [str(e) for e in finding.get("evidence") or []]
    return "\n".join(parts)


def counted(findings):
    """The findings not suppressed: those the exit status and the summary
    count."""
    return [f for f in findings if not f.get("suppressed")]


def check_suppressed(opts, doc, problems):
    """The suppressed findings' ids are exactly --suppressed, each with how
    and where it was suppressed, and the summary counts them."""
    quiet = [f for f in doc["findings"] if f.get("suppressed")]
    got, want = sorted({f["id"] for f in quiet}), sorted(set(opts.suppressed))
    problems.expect(got == want, f"suppressed findings {got}, expected {want}"
                    + "".join("\n  " + describe(f) for f in doc["findings"]))
    for f in quiet:
        how = f.get("suppression") or {}
        problems.expect(how.get("kind") in ("inSource", "external") and how.get("at") and how.get("justification"),
                        f"{f['id']} ({f.get('loader')}): suppressed without kind, at and justification: {how}")
    problems.expect(doc["summary"].get("suppressed") == len(quiet),
                    f"summary counts {doc['summary'].get('suppressed')} suppressed, the findings {len(quiet)}")


def check_findings(opts, status, doc, problems):
    findings = doc["findings"]
    found = sorted({f["id"] for f in counted(findings) if f["severity"] in ("error", "warning")})
    want = sorted(set(opts.expect))
    missing, extra = sorted(set(want) - set(found)), sorted(set(found) - set(want))
    if missing or extra:
        lines = [f"findings: expected errors/warnings {want}, report has {found}"
                 + (f"; missing {missing}" if missing else "") + (f"; unexpected {extra}" if extra else "")]
        lines += ["  " + describe(f) for f in findings] or ["  (no findings)"]
        problems.expect(False, "\n".join(lines))
    check_suppressed(opts, doc, problems)
    errors = any(f["severity"] == "error" for f in counted(findings))
    problems.expect(status == (1 if errors else 0), f"accwatch-report exited {status} with errors={errors}")

    for item in opts.finding_ranks:
        fid, _, ranks = item.partition("=")
        want_ranks = sorted(int(r) for r in ranks.split(",") if r)
        got = sorted({r for f in findings if f["id"] == fid for r in f.get("ranks") or []})
        problems.expect(got == want_ranks, f"{fid}: findings name ranks {got}, expected {want_ranks}")
    for item in opts.mention:
        fid, _, text = item.partition("=")
        texts = [finding_text(f) for f in findings if f["id"] == fid]
        problems.expect(any(text in t for t in texts),
                        f"{fid}: no finding mentions {text!r}" + "".join(f"\n  {fid}: {t!r}" for t in texts))
    for text in opts.absent:
        said = [f"{f['id']}: {finding_text(f)!r}" for f in findings if text.lower() in finding_text(f).lower()]
        problems.expect(not said, f"findings mention {text!r}:" + "".join(f"\n  {t}" for t in said))


def report_loader(doc, known, rank, problems):
    """The report's loader for a truth loader: same site basename:line and
    same ordinal among that site's loaders."""
    at_site = [l for l in doc["loaders"] if os.path.basename(str(l.get("site"))) == known["site"]
               and l.get("attempt", 0) == known.get("attempt", 0)]
    ordinal = known.get("ordinal", 0)
    if all("site_ordinal" in l for l in at_site):
        matches = [l for l in at_site if l["site_ordinal"] == ordinal]
    else:
        matches = at_site if len(at_site) == 1 else []
    if len(matches) != 1:
        sites = [(os.path.basename(str(l.get("site"))), l.get("site_ordinal")) for l in doc["loaders"]]
        problems.expect(False, f"rank {rank}: report has {len(matches)} loaders at {known['site']} ordinal "
                        f"{ordinal} (report loaders: {sites})")
        return None
    return matches[0]


def rank_rows(loader, rank):
    """{epoch: row} of one rank in a report loader."""
    rows = {}
    for epoch in loader.get("epochs") or []:
        for row in epoch.get("ranks") or []:
            if row.get("rank") == rank:
                rows[epoch["epoch"]] = row
    return rows


def merge_claims(truths):
    """The truths of processes that claim one rank (solo_ranks.py) in one
    attempt as one: the report adds their reads up in that rank's rows,
    loader by loader (site and ordinal), epoch by epoch, in the order of the
    truths. The attempts of a restarted job stay apart, as the report keeps
    them."""
    by_rank = {}
    for truth in truths:
        key = (truth["rank"], truth.get("attempt", 0))
        if key not in by_rank:
            by_rank[key] = json.loads(json.dumps(truth))
            continue
        merged = by_rank[key]
        for known in truth["loaders"]:
            same = [l for l in merged["loaders"] if (l["site"], l["ordinal"]) == (known["site"], known["ordinal"])]
            if not same:
                merged["loaders"].append(known)
                continue
            into = same[0]
            into["iterated"] = into.get("iterated", True) or known.get("iterated", True)
            into["len"] = into.get("len", []) + known.get("len", [])
            epochs = {e["epoch"]: e for e in into["epochs"]}
            for epoch in known["epochs"]:
                if epoch["epoch"] in epochs:
                    epochs[epoch["epoch"]]["batches"] += epoch["batches"]
                    epochs[epoch["epoch"]]["exhausted"] = epochs[epoch["epoch"]]["exhausted"] and epoch["exhausted"]
                else:
                    into["epochs"].append(epoch)
    merged = list(by_rank.values())
    for truth in merged:  # each loader is the report's loader of its attempt
        for known in truth["loaders"]:
            known["attempt"] = truth.get("attempt", 0)
    return merged


def check_counts(doc, truths, problems):
    """Every rank's batches, samples and unique samples per epoch equal what it read."""
    truths = merge_claims(truths)
    ranks = sorted({t["rank"] for t in truths})
    world = max(t["world"] for t in truths)
    problems.expect(doc["world_size"] == world, f"world_size {doc['world_size']}, expected {world}")
    problems.expect(sorted(doc["ranks"]) == ranks, f"ranks {doc['ranks']}, expected {ranks}")
    accounted = set()
    for truth in truths:
        rank = truth["rank"]
        for known in truth["loaders"]:
            loader = report_loader(doc, known, rank, problems)
            if loader is None:
                continue
            accounted.add(id(loader))
            name = f"{loader.get('id')} at {known['site']}"
            rows = rank_rows(loader, rank)
            for value in known.get("len", []):
                problems.expect(value in (loader.get("len_reported") or []),
                                f"{name}: rank {rank} got len() = {value}, loader's len_reported is "
                                f"{loader.get('len_reported')}")
            if not known.get("iterated", True):
                problems.expect(not rows, f"{name}: rank {rank} never iterated it, report has its epochs "
                                f"{sorted(rows)}: {[rows[e] for e in sorted(rows)]}")
                continue
            read = {e["epoch"]: e for e in known["epochs"]}
            problems.expect(sorted(rows) == sorted(read), f"{name}: rank {rank} iterated epochs {sorted(read)}, "
                            f"report has rows for epochs {sorted(rows)}")
            for epoch in sorted(read):
                if epoch not in rows:
                    continue
                row, samples = rows[epoch], [i for b in read[epoch]["batches"] for i in b]
                want = {"batches": len(read[epoch]["batches"]), "samples": len(samples), "unique": len(set(samples))}
                got = {k: row.get(k) for k in want}
                problems.expect(got == want, f"{name}: rank {rank} epoch {epoch}: report {got}, read {want}")
                if "exhausted" in read[epoch] and "exhausted" in row:
                    problems.expect(row["exhausted"] == read[epoch]["exhausted"],
                                    f"{name}: rank {rank} epoch {epoch}: report exhausted={row['exhausted']}, "
                                    f"the loop {'ran to the end' if read[epoch]['exhausted'] else 'stopped early'}")
    for loader in doc["loaders"]:
        if id(loader) not in accounted and any(e.get("ranks") for e in loader.get("epochs") or []):
            problems.expect(False, f"report loader {loader.get('id')} at {loader.get('site')} (ordinal "
                            f"{loader.get('site_ordinal')}) has epochs "
                            f"{[e['epoch'] for e in loader['epochs']]} no rank's truth accounts for")


QUOTED_BATCH = re.compile(r"#(\d+)(?: of epoch \d+)?(?:, | with | \()indices \[([-0-9, ]*?)(, \.\.\.)?\]")


def quoted_batches(finding):
    """(ordinal, [indices], cut) of every batch or fetch a finding quotes:
    '#2 of epoch 0 (indices [17, 19])', 'the last #3 with indices [...]'."""
    return [(int(m.group(1)), [int(i) for i in m.group(2).split(", ") if i], bool(m.group(3)))
            for m in QUOTED_BATCH.finditer(finding_text(finding))]


SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def write_report(opts, trace, form, path, problems):
    """accwatch-report --format form -o path; False (a problem noted) when
    it fails."""
    cmd = [os.path.join(opts.build, "bin", "accwatch-report"), "--format", form, "-o", path, trace]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return problems.expect(run.returncode in (0, 1), f"--format {form} exited {run.returncode}: {run.stderr}")


def check_sarif(opts, trace, work, doc, truths, problems):
    """--format sarif: valid SARIF 2.1.0 (sarif_validate.py, Debian's
    jsonschema), a result per finding with its id and level, each finding
    of a loader at the line the scenario says built a loader, relative to
    the repository that holds it."""
    path = os.path.join(work, "report.sarif")
    if not write_report(opts, trace, "sarif", path, problems):
        return
    valid = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "sarif_validate.py"), path],
                           capture_output=True, text=True)
    problems.expect(valid.returncode == 0, f"the SARIF log is not valid SARIF 2.1.0:\n{valid.stdout}{valid.stderr}")
    log = json.load(open(path))
    sarif_run = log["runs"][0]
    results = sarif_run["results"]
    findings = doc["findings"]
    if not problems.expect(len(results) == len(findings),
                           f"{len(results)} SARIF results for {len(findings)} findings"):
        return
    sites = {known["site"] for truth in truths for known in truth["loaders"]}
    root = sarif_run.get("originalUriBaseIds", {}).get("SRCROOT", {}).get("uri")
    for finding, result in zip(findings, results):
        name = f"SARIF result of {finding['id']} ({finding.get('loader')})"
        problems.expect((result["ruleId"], result["level"]) == (finding["id"], SARIF_LEVELS[finding["severity"]]),
                        f"{name}: ruleId {result['ruleId']}, level {result['level']}")
        kinds = [s.get("kind") for s in result.get("suppressions", [])]
        want = [finding["suppression"]["kind"]] if finding.get("suppressed") else []
        problems.expect(kinds == want, f"{name}: suppressions {kinds}, expected {want}")
        if finding.get("loader") is None:
            continue
        where = result.get("locations", [{}])[0].get("physicalLocation", {})
        uri = where.get("artifactLocation", {}).get("uri", "")
        at = f"{os.path.basename(urllib.parse.unquote(uri))}:{where.get('region', {}).get('startLine')}"
        problems.expect(at in sites, f"{name}: at {at}, not at a line that built a loader ({sorted(sites)})")
        if where.get("artifactLocation", {}).get("uriBaseId") == "SRCROOT":
            file = urllib.parse.unquote(urllib.parse.urlparse(root).path + uri)
            problems.expect(os.path.isfile(file), f"{name}: {uri} is not a file under {root}")
        else:
            problems.expect(False, f"{name}: {uri} is not relative to the repository of the scenario")


def check_html(opts, trace, work, doc, truths, problems):
    """--format html, opened in headless Chromium by html_check.py (with
    --browser-python, which has Playwright): the page against what the
    ranks read. The screenshot is kept in the work directory."""
    path = os.path.join(work, "report.html")
    if not write_report(opts, trace, "html", path, problems):
        return
    epochs = {}
    for truth in merge_claims(truths):
        for known in truth["loaders"]:
            loader = report_loader(doc, known, truth["rank"], Problems())
            if loader is None or not known.get("iterated", True):
                continue
            for read in known["epochs"]:
                samples = [i for b in read["batches"] for i in b]
                epochs.setdefault((loader["id"], read["epoch"]), {})[truth["rank"]] = (len(read["batches"]), samples)
    want = {"findings": [[f["id"], f.get("loader")] for f in doc["findings"]],
            "loaders": [l["id"] for l in doc["loaders"]], "epochs": []}
    for (loader, epoch), by_rank in sorted(epochs.items()):
        ranks = sorted(by_rank)
        sets = [set(by_rank[r][1]) for r in ranks]
        read_by = {}
        for index in set().union(*sets):
            k = sum(index in s for s in sets)
            read_by[str(k)] = read_by.get(str(k), 0) + 1
        want["epochs"].append({
            "loader": loader, "epoch": epoch, "ranks": ranks,
            "batches": [by_rank[r][0] for r in ranks], "samples": [len(by_rank[r][1]) for r in ranks],
            "unique": [len(s) for s in sets], "shared": [[len(a & b) for b in sets] for a in sets],
            "read_by": read_by})
    expect_path = os.path.join(work, "html-expect.json")
    with open(expect_path, "w") as f:
        json.dump(want, f)
    check = subprocess.run([opts.browser_python, os.path.join(HERE, "html_check.py"), "--html", path,
                            "--expect", expect_path, "--screenshot", os.path.join(work, "report.png")],
                           capture_output=True, text=True, timeout=300)
    problems.expect(check.returncode == 0, f"the HTML report in Chromium (html_check.py):\n"
                    f"{check.stdout}{check.stderr[-2000:]}")


def check_died_workers(doc, truths, problems):
    died = [f for f in doc["findings"] if f["id"] == "worker-died"]
    for truth in truths:
        for worker in truth.get("died_workers", []):
            names = (str(worker["pid"]), f"worker {worker['worker_id']}")
            ok = [f for f in died if truth["rank"] in (f.get("ranks") or [])
                  and any(n in finding_text(f) for n in names)]
            problems.expect(ok, f"rank {truth['rank']}'s worker {worker['worker_id']} (pid {worker['pid']}) "
                            f"was killed: no worker-died finding names rank {truth['rank']} and "
                            f"{' or '.join(repr(n) for n in names)}"
                            + "".join("\n  " + describe(f) for f in died))
            if "index" in worker and ok:
                inside = [f for f in ok if "in the middle of its fetch" in f["message"]
                          and any(worker["index"] in b for _, b, _ in quoted_batches(f))]
                problems.expect(inside, f"rank {truth['rank']}'s worker {worker['worker_id']} died reading "
                                f"index {worker['index']}: its worker-died finding does not say it was in the "
                                f"middle of a fetch of that index" + "".join("\n  " + describe(f) for f in ok))


def check_stuck_workers(doc, truths, problems):
    stuck = [f for f in doc["findings"] if f["id"] == "worker-stuck"]
    for truth in truths:
        for worker in truth.get("stuck_workers", []):
            ok = [f for f in stuck if truth["rank"] in (f.get("ranks") or [])
                  and any(b == worker["indices"] and not cut for _, b, cut in quoted_batches(f))]
            problems.expect(ok, f"a worker of rank {truth['rank']} hung reading index {worker['index']}: no "
                            f"worker-stuck finding of rank {truth['rank']} quotes exactly the indices "
                            f"{worker['indices']} of its fetch" + "".join("\n  " + describe(f) for f in stuck))


def check_killed_rank(doc, truths, problems):
    """A rank that ended itself: rank-died (its end recorded) or the
    trace-incomplete evidence (vanished) names it and its last batch, and,
    when an exception ended it, says "raised Type: message"."""
    said = [f for f in doc["findings"] if f["id"] in ("rank-died", "trace-incomplete")]
    for truth in truths:
        killed = truth.get("killed")
        if not killed:
            continue
        want = (killed["batch"], killed["indices"], False)
        ok = [f for f in said if truth["rank"] in (f.get("ranks") or []) and want in quoted_batches(f)]
        problems.expect(ok, f"rank {truth['rank']} ended after drawing batch #{killed['batch']} "
                        f"{killed['indices']}: no rank-died or trace-incomplete finding names the rank and "
                        f"quotes that batch" + "".join("\n  " + describe(f) for f in said))
        if ok and killed.get("raised"):
            raised = f"raised {killed['raised']}"
            problems.expect(any(raised in f["message"] for f in ok),
                            f"rank {truth['rank']} ended by an exception: its finding's message does not say "
                            f"{raised!r}" + "".join("\n  " + describe(f) for f in ok))


def check_worker_pids(trace, truth_dir, truths, problems):
    """worker_fetch / item_fetch events of workers carry the workers' own pids."""
    workers = {int(os.path.basename(p).split("-")[1]) for p in glob.glob(os.path.join(truth_dir, "worker-*"))}
    if not problems.expect(workers, "the scenario started no workers"):
        return
    text = subprocess.run(["babeltrace2", trace], capture_output=True, text=True, check=True).stdout
    pids = {int(m.group(2)) for m in re.finditer(r"accwatch:(worker_fetch|worker_fetch_packed|item_fetch):.*?pid = (\d+), "
                                                  r"worker_id = (?!-)", text)}
    # worker_fetch_bits: worker_id leads the packed words
    sys.path.insert(0, HERE)
    from packed import unpack_bits
    for m in re.finditer(r"accwatch:worker_fetch_bits:.*?pid = (\d+), .*?packed = \[ (.*?) \]", text):
        words = [int(w) for w in re.findall(r"\[\d+\] = (\d+)", m.group(2))]
        if unpack_bits("worker_fetch", words)[0]["worker_id"] >= 0:
            pids.add(int(m.group(1)))
    if not problems.expect(pids, "no worker_fetch/item_fetch events of workers in the trace"):
        return
    problems.expect(pids <= workers, f"worker_fetch pids {sorted(pids - workers)} are not worker pids {sorted(workers)}")
    problems.expect(not pids & {t["pid"] for t in truths}, "worker_fetch events carry a rank's pid")


def scenario_options(case, stack):
    """check.py options of scenarios/<case>.py: its OPTIONS and --expect from
    its EXPECT (each a list, or a dict of a list per stack). Read as
    literals: no import."""
    path = os.path.join(HERE, "scenarios", f"{case}.py")
    try:
        tree = ast.parse(open(path).read(), path)
    except OSError as e:
        raise SystemExit(f"check.py: no scenario {case}: {e}")
    values = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
    literal = lambda name, default: ast.literal_eval(values[name]) if name in values else default
    stacks = literal("STACKS", ("debian", "venv"))
    if stack not in stacks:
        raise SystemExit(f"check.py: scenario {case} runs on {', '.join(stacks)} only, not {stack}")
    per_stack = lambda value: value[stack] if isinstance(value, dict) else value
    expected = per_stack(literal("EXPECT", []))
    return list(per_stack(literal("OPTIONS", []))) + ["--expect"] + list(expected)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", help="the CMake build directory (not needed with --plain)")
    parser.add_argument("--case", required=True,
                        help="a scenario of scenarios/ (its EXPECT and OPTIONS come first)")
    parser.add_argument("--stack", choices=("debian", "venv"), default="debian", help="see above")
    parser.add_argument("--python", default="/usr/bin/python3", help="the ranks' interpreter")
    parser.add_argument("--site", help="a directory put first on the ranks' PYTHONPATH")
    parser.add_argument("--launcher", choices=("auto",) + LAUNCHERS, default="auto",
                        help="how ranks start (auto: by --stack, see above)")
    parser.add_argument("--script", default="ranks.py", help="the rank program, in this directory")
    parser.add_argument("--spawned", action="store_true",
                        help="the launcher starts one process of --script, which starts --nproc ranks itself "
                        "(torch.multiprocessing.spawn: spawn_ranks.py)")
    parser.add_argument("--nproc", type=int, default=4)
    parser.add_argument("--max-restarts", type=int, default=0,
                        help="torchrun's --max-restarts: each attempt's ranks write their own truth")
    parser.add_argument("--jobs", type=int, default=1,
                        help="run the launcher this many times in one recording, one job after the other: "
                        "each job's ranks write their own truth")
    parser.add_argument("--expect", nargs="*", default=[], help="the exact error and warning ids not suppressed")
    parser.add_argument("--suppressed", action="append", default=[], metavar="ID",
                        help="a finding with this id is suppressed (again for more: the exact set)")
    parser.add_argument("--workers", action="store_true", help="also check the workers' pids")
    parser.add_argument("--accelerate", action="store_true", help="the case uses accelerate (its launcher on the venv stack)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="set for the run")
    parser.add_argument("--finding-ranks", action="append", default=[], metavar="ID=R,R",
                        help="the ranks findings with this id name, all together")
    parser.add_argument("--mention", action="append", default=[], metavar="ID=TEXT",
                        help="some finding with this id has TEXT in its message, evidence or fix")
    parser.add_argument("--absent", action="append", default=[], metavar="TEXT",
                        help="no finding, infos included, has TEXT (any case) in its message, evidence or fix")
    parser.add_argument("--timeout", type=int, default=DEADLINE,
                        help="seconds the run may take; past them, what each of its processes waits on is "
                        "printed (wchan, kernel and Python stacks) and the run killed")
    parser.add_argument("--status", type=int, default=0,
                        help="the run's exit status (the launcher's: 128 + signal when a rank was killed)")
    parser.add_argument("--html", action="store_true",
                        help="also open the HTML report in headless Chromium and check its plots")
    parser.add_argument("--browser-python", default=sys.executable,
                        help="a Python with Playwright, for --html (default: this one)")
    parser.add_argument("--plain", action="store_true", help="run the rank program without accwatch, check its truth only")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--live", action="store_true",
                        help="record with accwatch-run --live: what it prints while the job runs must be "
                        "findings of the final report")
    parser.add_argument("--live-before", action="append", default=[], metavar="ID=EPOCH",
                        help="with --live: a live line of ID for EPOCH came before any rank ended that epoch")
    parser.add_argument("--live-before-end", action="append", default=[], metavar="ID=EPOCH",
                        help="with --live: a live line of ID for EPOCH came before the last rank ended it")
    given = parser.parse_args()
    opts = parser.parse_args(scenario_options(given.case, given.stack) + sys.argv[1:])
    if not opts.plain and not opts.build:
        parser.error("--build is required (unless --plain)")

    work = tempfile.mkdtemp(prefix=f"accwatch-e2e-{opts.case}-")
    found, live_lines = [], 0
    try:
        trace, truth_dir, said = record(opts, work)
        truths = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(truth_dir, "rank-*.json")))]
        first = [t for t in truths if t.get("attempt", 0) == 0]  # a restart's attempts write again
        expect(len(first) == opts.nproc, f"{len(first)} of {opts.nproc} ranks wrote their truth")
        if not opts.plain:
            status, doc = report(opts, trace, work)
            found = sorted({f["id"] for f in counted(doc["findings"]) if f["severity"] in ("error", "warning")})
            problems = Problems()
            check_findings(opts, status, doc, problems)
            check_counts(doc, truths, problems)
            check_died_workers(doc, truths, problems)
            check_stuck_workers(doc, truths, problems)
            check_killed_rank(doc, truths, problems)
            check_sarif(opts, trace, work, doc, truths, problems)
            if opts.live:
                live_lines = check_live(said.since(0), doc, problems)
                check_live_before(opts, said, truths, problems)
            if opts.html:
                check_html(opts, trace, work, doc, truths, problems)
            if opts.workers:
                check_worker_pids(trace, truth_dir, truths, problems)
            problems.fatal()
    except Failure as e:
        print(f"FAIL {opts.case}:\n{e}\n  kept: {work}", file=sys.stderr)
        sys.exit(1)
    if opts.keep:
        print(f"kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    if opts.plain:
        print(f"ok {opts.case}: ran without accwatch, {len(truths)} truths")
    else:
        live = f", {live_lines} live" if opts.live else ""
        print(f"ok {opts.case}: findings {found}{live}")


if __name__ == "__main__":
    main()
