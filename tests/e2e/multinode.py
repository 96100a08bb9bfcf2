# SPDX-License-Identifier: MIT
"""One job over two nodes streamed to one collector, checked against the same
job recorded on one node. Network namespaces are the machines: two nodes
and a collector, each node its own UTS namespace (host name node0, node1),
mount namespace (its own /dev/shm and /run: its own lttng-sessiond, as a
machine has) and LTTNG_HOME; a veth pair joins the nodes (torchrun's c10d
rendezvous and gloo) and one more joins each node to the collector, where
lttng-relayd writes every node's trace under its -o. Each node runs
`accwatch-run --relayd` around `torchrun --nnodes 2 --rdzv-backend c10d`
(no --run-id: both take the run id from torchrun's --rdzv-id).

Checked: both nodes' jobs exit 0; the report on the relayd's directory
(`--run ID` of the rendezvous id) has every rank's counts equal to what it
read (check.py's check_counts) and the same findings (id, severity, loader,
epoch, ranks) as the job of the same world size under one accwatch-run on
one machine. With --break-link, node1's link to the collector goes down
after its first epoch (the job goes on): the job still exits 0, and the
report's only error or warning is a trace-incomplete that says node1's
trace ends early and blames no other host. Without it, `accwatch-report
--live net://COLLECTOR --run ID` on the collector follows both nodes'
sessions while the job runs: what it prints is of the final report.

Needs root (ip netns, mount). Every name it makes carries the test's pid;
everything is removed on exit. Run from ctest (e2e_multinode,
e2e_multinode_link_broken) or by hand:

    multinode.py --build build --python .venv/bin/python --case unsharded"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check  # noqa: E402  (check_counts, Problems, Failure)

# Addresses exist only inside the namespaces made here.
PEER = ("10.99.0.1", "10.99.0.2")        # node0 <-> node1
COLLECTOR = ("10.99.1.1", "10.99.2.1")   # the collector's end of each node's link
NODE_UP = ("10.99.1.2", "10.99.2.2")     # each node's end of its link to the collector
RDZV_PORT = 29400


def sh(*cmd, check_rc=True):
    run = subprocess.run(cmd, capture_output=True, text=True)
    if check_rc and run.returncode != 0:
        raise check.Failure(f"{' '.join(cmd)}: exit {run.returncode}: {run.stderr.strip()}")
    return run


class Machines:
    """The three namespaces and their links; removed by close()."""

    def __init__(self, tag):
        self.nodes = [f"{tag}n0", f"{tag}n1"]
        self.collector = f"{tag}c"
        self.made = []

    def make(self):
        for ns in self.nodes + [self.collector]:
            sh("ip", "netns", "add", ns)
            self.made.append(ns)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        n0, n1 = self.nodes
        links = [(n0, "peer", PEER[0], n1, "peer", PEER[1])]
        for i, node in enumerate(self.nodes):
            links.append((node, "coll", NODE_UP[i], self.collector, f"node{i}", COLLECTOR[i]))
        for a, a_dev, a_addr, b, b_dev, b_addr in links:
            sh("ip", "link", "add", a_dev, "netns", a, "type", "veth", "peer", "name", b_dev, "netns", b)
            for ns, dev, addr in ((a, a_dev, a_addr), (b, b_dev, b_addr)):
                sh("ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
                sh("ip", "-n", ns, "link", "set", dev, "up")

    def close(self):
        for ns in self.made:
            # Whatever still runs there (a session daemon, its consumer
            # stuck on a dead link): only processes this test started.
            pids = sh("ip", "netns", "pids", ns, check_rc=False).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            sh("ip", "netns", "del", ns, check_rc=False)


def in_machine(ns, host, work, script):
    """argv running the shell script in namespace ns as machine `host`: its
    own host name, /dev/shm, /run (the session daemon's sockets) and
    /etc/hosts (the nodes' names)."""
    hosts = os.path.join(work, "hosts")
    setup = (f"hostname {host} && mount -t tmpfs -o size=1g,mode=1777 tmpfs /dev/shm && "
             f"mount -t tmpfs -o mode=755 tmpfs /run && mount --bind {hosts} /etc/hosts && ")
    return ["ip", "netns", "exec", ns, "unshare", "--uts", "--mount", "--propagation", "private",
            "--", "sh", "-c", setup + script]


def node_script(opts, i, work, rdzv_id):
    torchrun = os.path.join(os.path.dirname(opts.python), "torchrun")
    job = [torchrun, "--nnodes", "2", "--node-rank", str(i), "--nproc-per-node", str(opts.nproc_per_node),
           "--rdzv-backend", "c10d", "--rdzv-endpoint", f"{PEER[0]}:{RDZV_PORT}", "--rdzv-id", rdzv_id,
           "--rdzv-conf", f"is_host={1 if i == 0 else 0}", "--local-addr", PEER[i],
           os.path.join(HERE, "ranks.py"), "--case", opts.case, "--truth", os.path.join(work, "truth")]
    home = os.path.join(work, f"home{i}")
    os.makedirs(home)
    run = [os.path.join(opts.build, "bin", "accwatch-run"), "-q", "--relayd", COLLECTOR[i]]
    if opts.break_link:  # the smallest buffers: the events behind the broken link fill them
        run += ["--subbuf-size", "64k", "--num-subbuf", "2"]
    return (f"export LTTNG_HOME={home} GLOO_SOCKET_IFNAME=peer && exec "
            + " ".join(run + ["--"] + job))


def job_env(opts, work):
    env = dict(os.environ, PYTHONFAULTHANDLER="1")
    if opts.break_link:
        env.update(ACCWATCH_E2E_LEN=str(opts.length), ACCWATCH_E2E_MARK=os.path.join(work, "epoch0"))
    return env


def wait_marks(work, ranks, deadline):
    marks = [os.path.join(work, f"epoch0.{r}") for r in ranks]
    while not all(os.path.exists(m) for m in marks):
        if time.monotonic() > deadline:
            raise check.Failure(f"no rank wrote {marks} in time")
        time.sleep(0.1)


def run_nodes(opts, machines, work):
    """Both nodes' jobs; with --break-link node1's link to the collector
    goes down once its ranks finished epoch 0. Returns the seconds each
    node's accwatch-run took and when the job's ranks wrote their truth."""
    rdzv_id = f"job{os.getpid()}"
    env = job_env(opts, work)
    procs, started = [], time.monotonic()
    for i, ns in enumerate(machines.nodes):
        log = open(os.path.join(work, f"node{i}.log"), "w")
        procs.append(subprocess.Popen(in_machine(ns, f"node{i}", work, node_script(opts, i, work, rdzv_id)),
                                      env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
    deadline = started + opts.timeout
    broken_at = None
    viewer = None if opts.break_link else start_viewer(opts, machines, work, opts.out, rdzv_id, deadline)
    if opts.break_link:
        # Whichever global ranks node1 got, all of them have passed epoch 0
        # when every rank of the job has: wait for all, then one live-timer
        # period and a half for epoch 0 to reach the collector; the ranks
        # go on once the link is down.
        wait_marks(work, range(2 * opts.nproc_per_node), deadline)
        time.sleep(1.5)
        sh("ip", "-n", machines.nodes[1], "link", "set", "coll", "down")
        broken_at = time.monotonic() - started
        open(os.path.join(work, "epoch0.go"), "w").close()
    took = []
    for i, proc in enumerate(procs):
        try:
            rc = proc.wait(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise check.Failure(f"node{i} did not finish in {opts.timeout} s; see {work}/node{i}.log")
        took.append(time.monotonic() - started)
        if rc != 0:
            raise check.Failure(f"node{i}'s accwatch-run exited {rc}; see {work}/node{i}.log")
    said = ""
    if viewer:
        try:
            said, _ = viewer.communicate(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(viewer.pid, signal.SIGKILL)
            raise check.Failure(f"accwatch-report --live did not end with the sessions; see {work}/viewer.log")
        with open(os.path.join(work, "viewer.out"), "w") as f:
            f.write(said)
    # The ranks write their truth once the job's last barrier passed.
    truth_done = max(os.stat(p).st_mtime for p in truth_files(os.path.join(work, "truth")))
    return took, broken_at, rdzv_id, truth_done - (time.time() - (time.monotonic() - started)), said


def start_viewer(opts, machines, work, out, rdzv_id, deadline):
    """accwatch-report --live on the collector, on the relay daemon alone
    (net://127.0.0.1: every accwatch-run session it has) and the job's run
    id, once both nodes' sessions reached it (their host directories)."""
    while sorted(os.listdir(out) if os.path.isdir(out) else []) != ["node0", "node1"]:
        if time.monotonic() > deadline:
            raise check.Failure(f"the nodes' sessions never reached the relayd ({out})")
        time.sleep(0.1)
    report = os.path.join(opts.build, "bin", "accwatch-report")
    log = open(os.path.join(work, "viewer.log"), "w")
    return subprocess.Popen(in_machine(machines.collector, "collector", work,
                                       f"exec {report} --live net://127.0.0.1 --run {rdzv_id}"),
                            stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True)


def truth_files(truth):
    return sorted(os.path.join(truth, n) for n in os.listdir(truth) if n.startswith("rank-"))


def report(opts, paths, extra=()):
    cmd = [os.path.join(opts.build, "bin", "accwatch-report"), "--format", "json", *extra, *paths]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if run.returncode not in (0, 1):
        raise check.Failure(f"{' '.join(cmd)}: exit {run.returncode}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def record_one_machine(opts, work):
    """The same job, same world size, under one accwatch-run on this machine."""
    ref = os.path.join(work, "one")
    os.makedirs(ref)
    world = 2 * opts.nproc_per_node
    torchrun = os.path.join(os.path.dirname(opts.python), "torchrun")
    cmd = [os.path.join(opts.build, "bin", "accwatch-run"), "-q", "-o", os.path.join(ref, "trace"), "--",
           torchrun, "--standalone", "--nproc-per-node", str(world), os.path.join(HERE, "ranks.py"),
           "--case", opts.case, "--truth", os.path.join(ref, "truth")]
    run = subprocess.run(cmd, env=dict(os.environ), capture_output=True, text=True, timeout=opts.timeout)
    if run.returncode != 0:
        raise check.Failure(f"one-machine run exited {run.returncode}: {run.stderr[-2000:]}")
    return report(opts, [os.path.join(ref, "trace")]), [json.load(open(p)) for p in truth_files(os.path.join(ref, "truth"))]


def findings_key(doc):
    return sorted((f["id"], f["severity"], f.get("loader"), f.get("epoch"), tuple(f.get("ranks") or []))
                  for f in doc["findings"])


def finding_text(f):
    return " ".join([f.get("message") or ""] + [str(e) for e in f.get("evidence") or []])


def check_broken(doc, problems):
    incomplete = [f for f in doc["findings"] if f["id"] == "trace-incomplete"]
    problems.expect(incomplete, f"no trace-incomplete finding: {findings_key(doc)}")
    for f in incomplete:
        text = finding_text(f)
        problems.expect("the trace of host node1 ends early" in text, f"trace-incomplete does not name node1: {text}")
        problems.expect("host node0" not in text, f"trace-incomplete blames node0: {text}")
    others = sorted({f["id"] for f in doc["findings"]
                     if f["severity"] in ("error", "warning") and f["id"] != "trace-incomplete"})
    problems.expect(not others, f"findings besides trace-incomplete: {others}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True)
    parser.add_argument("--python", required=True, help="the venv's Python (torchrun beside it)")
    parser.add_argument("--case", default="unsharded", help="a scenario of scenarios/")
    parser.add_argument("--nproc-per-node", type=int, default=1)
    parser.add_argument("--break-link", action="store_true",
                        help="node1's link to the collector goes down after epoch 0 (case sharded_paced)")
    parser.add_argument("--length", type=int, default=96000,
                        help="the dataset's length with --break-link: epochs 1 and 2 emit enough events "
                        "to fill node1's buffers behind the broken link")
    parser.add_argument("--timeout", type=int, default=200)
    parser.add_argument("--keep", action="store_true")
    opts = parser.parse_args()
    if os.geteuid() != 0:
        print("skipped: multinode.py needs root (ip netns, mount)", file=sys.stderr)
        sys.exit(77)

    tag = f"aw{os.getpid()}"
    work = tempfile.mkdtemp(prefix=f"accwatch-multinode-{opts.case}-")
    os.chmod(work, 0o755)
    with open(os.path.join(work, "hosts"), "w") as f:
        f.write(f"127.0.0.1 localhost\n{PEER[0]} node0\n{PEER[1]} node1\n")
    machines = Machines(tag)
    relayd = None
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    failed = True
    try:
        machines.make()
        out = os.path.join(work, "collector")
        relayd_log = open(os.path.join(work, "relayd.log"), "w")
        relayd = subprocess.Popen(in_machine(machines.collector, "collector", work, f"exec lttng-relayd -o {out}"),
                                  stdout=relayd_log, stderr=subprocess.STDOUT, start_new_session=True)
        time.sleep(1)
        opts.out = out
        took, broken_at, rdzv_id, truth_at, said = run_nodes(opts, machines, work)
        relayd.terminate()
        relayd.wait(timeout=30)
        doc = report(opts, [out], ["--run", rdzv_id])
        with open(os.path.join(work, "report.json"), "w") as f:
            json.dump(doc, f, indent=1)
        problems = check.Problems()
        truths = [json.load(open(p)) for p in truth_files(os.path.join(work, "truth"))]
        hosts = sorted(os.listdir(out))
        problems.expect(hosts == ["node0", "node1"], f"the relayd wrote hosts {hosts}")
        if opts.break_link:
            check_broken(doc, problems)
        else:
            check.check_counts(doc, truths, problems)
            one, one_truths = record_one_machine(opts, work)
            check.check_counts(one, one_truths, problems)
            problems.expect(findings_key(doc) == findings_key(one),
                            f"findings over two nodes {findings_key(doc)}, on one machine {findings_key(one)}")
            # What the collector printed live over both nodes' sessions is
            # of the final report, and an error of it was printed.
            live = check.check_live(said, doc, problems)
            errors = [f for f in doc["findings"] if f["severity"] == "error" and not f.get("suppressed")]
            problems.expect(live or not errors, f"accwatch-report --live printed nothing over the nodes: {said!r}")
        problems.fatal()
        failed = False
        broken = f"link down at {broken_at:.1f} s, " if broken_at else ""
        live = f"{said.count('accwatch live:')} live lines on the collector, " if said else ""
        print(f"ok multinode {opts.case}: {live}{broken}ranks done at {truth_at:.1f} s, each node's accwatch-run "
              f"at {', '.join('%.1f s' % t for t in took)}; findings {sorted({f['id'] for f in doc['findings']})}")
    except check.Failure as e:
        print(f"FAIL multinode {opts.case}:\n{e}\n  kept: {work}", file=sys.stderr)
    finally:
        if relayd and relayd.poll() is None:
            os.killpg(relayd.pid, signal.SIGKILL)
        machines.close()
        if not failed and not opts.keep:
            shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
