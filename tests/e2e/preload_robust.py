# SPDX-License-Identifier: MIT
# Programs that must behave the same with and without libaccwatch.so (and
# with and without a session): each case prints what a program can observe.
# Run by preload_robust.sh: preload_robust.py CASE.
import gc
import inspect
import os
import pickle
import signal
import subprocess
import sys
import threading
import time


def show(*args):
    print(*args)
    sys.stdout.flush()


def torch_modules():
    import torch
    from torch.utils.data import DataLoader, Dataset, IterableDataset
    return torch, DataLoader, Dataset, IterableDataset


torch, DataLoader, Dataset, IterableDataset = (None,) * 4
if sys.argv[1] not in ("no_torch", "no_site"):
    torch, DataLoader, Dataset, IterableDataset = torch_modules()

    class Squares(Dataset):
        def __len__(self):
            return 24

        def __getitem__(self, i):
            return i * i

    class Failing(Squares):
        def __getitem__(self, i):
            if i == 7:
                raise KeyError("item %d" % i)
            return i

    class Stream(IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

    class EarlyStop(IterableDataset):
        def __iter__(self):
            yield 1
            raise StopIteration  # PEP 479: a RuntimeError in a generator


def epoch(loader):
    return [b.tolist() if hasattr(b, "tolist") else b for b in loader]


def case_getitem_raises():
    for workers in (0, 2):
        try:
            epoch(DataLoader(Failing(), batch_size=4, num_workers=workers))
        except KeyError as error:
            # the worker's traceback is quoted in the message: keep the type
            show("raised", workers, type(error).__name__,
                 str(error).splitlines()[0])
        gc.collect()


def case_stop_iteration():
    for workers in (0, 2):
        iterator = iter(DataLoader(Squares(), batch_size=10,
                                   num_workers=workers))
        show("epoch", workers, [b.tolist() for b in iterator])
        for _ in range(2):
            try:
                next(iterator)
            except StopIteration as stop:
                show("stop", type(stop).__name__, stop.args)
        del iterator
        gc.collect()
    show("stream", epoch(DataLoader(Stream(7), batch_size=3)))
    show("unbatched", epoch(DataLoader(Stream(3), batch_size=None)))
    try:
        epoch(DataLoader(EarlyStop(), batch_size=None))
    except RuntimeError as error:
        show("generator", type(error).__name__, error)


def case_keyboard_interrupt():
    for workers in (0, 2):
        seen = 0
        try:
            for batch in DataLoader(Squares(), batch_size=2,
                                    num_workers=workers):
                seen += 1
                if seen == 3:
                    raise KeyboardInterrupt("in the body")
        except KeyboardInterrupt as interrupt:
            show("body", workers, seen, interrupt.args)
        gc.collect()
        seen = 0
        try:
            for batch in DataLoader(Squares(), batch_size=2,
                                    num_workers=workers):
                seen += 1
                if seen == 2:
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(5)  # the handler raises before this ends
        except KeyboardInterrupt as interrupt:
            show("sigint", workers, seen, type(interrupt).__name__)
        gc.collect()
    show("after", epoch(DataLoader(Squares(), batch_size=12)))


def case_sigint_uncaught():
    for i, batch in enumerate(DataLoader(Squares(), batch_size=2,
                                         num_workers=2)):
        show("batch", i)
        if i == 1:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)


def signatures(label):
    from torch.utils.data._utils.fetch import _BaseDatasetFetcher
    from torch.utils.data.dataloader import _BaseDataLoaderIter
    import torch.distributed
    for function in (DataLoader.__init__, DataLoader.__iter__,
                     DataLoader.__len__, _BaseDataLoaderIter.__init__,
                     _BaseDataLoaderIter.__next__,
                     _BaseDataLoaderIter._next_index,
                     _BaseDataLoaderIter._reset, _BaseDatasetFetcher.__init__,
                     torch.distributed.init_process_group):
        show(label, function.__qualname__, inspect.signature(function))


def case_signatures():
    signatures("idle")
    iterator = iter(DataLoader(Squares(), batch_size=4))
    next(iterator)
    signatures("iterating")  # the per-batch wrappers are in place now
    del iterator


def case_pickling():
    from torch.utils.data._utils import worker
    loader = DataLoader(Squares(), batch_size=4, shuffle=True)
    for obj in (loader, loader.dataset, loader.sampler, worker._worker_loop,
                DataLoader.__init__, DataLoader.__iter__, DataLoader.__len__):
        try:
            copy = pickle.loads(pickle.dumps(obj))
            show("pickle", getattr(obj, "__qualname__", type(obj).__name__),
                 copy is obj or type(copy).__name__)
        except Exception as error:
            show("pickle", type(obj).__name__, "fails", type(error).__name__)
    for context in ("spawn", "forkserver"):
        for dataset in (Squares(), Stream(9)):
            loader = DataLoader(dataset, batch_size=4, num_workers=2,
                                multiprocessing_context=context,
                                persistent_workers=True)
            for _ in range(2):
                show(context, type(dataset).__name__,
                     sorted(x for b in loader for x in b.tolist()))
            del loader
            gc.collect()


def case_fork_storm():
    """8 threads forking 100 times each (the fork interposer and LTTng's
    before/after fork hooks under contention)."""
    iterator = iter(DataLoader(Squares(), batch_size=4))
    next(iterator)  # a recorded iteration is open meanwhile
    statuses = []
    lock = threading.Lock()

    def forker(number):
        for i in range(100):
            pid = os.fork()
            if pid == 0:
                os._exit((number * 100 + i) % 200)
            _, status = os.waitpid(pid, 0)
            with lock:
                statuses.append(os.WEXITSTATUS(status))

    threads = [threading.Thread(target=forker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    show("forks", len(statuses), sum(statuses))
    show("rest", [b.tolist() for b in iterator])


def case_clone():
    """clone() called directly: without CLONE_VM it is a fork (the
    interposer runs the fork hooks around it, the child's before the
    caller's function); with CLONE_VM | CLONE_VFORK (posix_spawn's way) it
    is passed on untouched. The child's function is libc's _exit, its
    argument the status."""
    import ctypes
    iterator = iter(DataLoader(Squares(), batch_size=4))
    next(iterator)  # a recorded iteration is open meanwhile
    libc = ctypes.CDLL(None, use_errno=True)
    libc.clone.restype = ctypes.c_int
    libc.clone.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    exit_now = ctypes.cast(libc._exit, ctypes.c_void_p)
    clone_vm, clone_vfork = 0x100, 0x4000
    stack = ctypes.create_string_buffer(1 << 16)
    top = ctypes.addressof(stack) + len(stack) - 64
    statuses = []
    for flags, status in ((signal.SIGCHLD, 7), (clone_vm | clone_vfork | signal.SIGCHLD, 9)):
        pid = libc.clone(exit_now, top, flags, status)
        if pid < 0:
            show("clone failed", ctypes.get_errno())
            continue
        _, raw = os.waitpid(pid, 0)
        statuses.append(os.WEXITSTATUS(raw))
    show("clone statuses", statuses)
    show("rest", [b.tolist() for b in iterator])


def case_subprocesses():
    here = os.path.abspath(__file__)
    # vfork (3.10+) and fork paths of subprocess, posix_spawn, os.system
    show(subprocess.run(["sh", "-c", "echo vfork; exit 3"],
                        capture_output=True, text=True))
    show(subprocess.run(["/bin/sh", "-c", "echo spawn; exit 4"],
                        close_fds=False, capture_output=True,
                        text=True).returncode)
    show(subprocess.run(["sh", "-c", "exit 5"],
                        preexec_fn=lambda: None).returncode)
    pid = os.posix_spawn("/bin/sh", ["sh", "-c", "exit 6"], os.environ)
    show("posix_spawn", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    pid = os.posix_spawnp("sh", ["sh", "-c", "exit 7"], os.environ)
    show("posix_spawnp", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    show("system", os.waitstatus_to_exitcode(os.system("exit 8")))
    try:
        subprocess.run(["/nonexistent/command"])
    except FileNotFoundError as error:
        show("missing", error.errno)
    for how in ("execv", "execve", "execvp", "execvpe"):
        pid = os.fork()
        if pid == 0:
            argv = ["sh", "-c", "exit 9"]
            try:
                if how == "execv":
                    os.execv("/bin/sh", argv)
                elif how == "execve":
                    os.execve("/bin/sh", argv, dict(os.environ))
                elif how == "execvp":
                    os.execvp("sh", argv)
                else:
                    os.execvpe("sh", argv, dict(os.environ))
            finally:
                os._exit(99)
        show(how, os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    # the child reads a loader too: a torch process started by a torch one
    out = subprocess.run([sys.executable, here, "stop_iteration"],
                         capture_output=True, text=True)
    show("python child", out.returncode, len(out.stdout.splitlines()))
    epoch(DataLoader(Squares(), batch_size=5, num_workers=2))
    os.execv("/bin/sh", ["sh", "-c", "echo exec of the main process; exit 11"])


def case_workers32():
    loader = DataLoader(Squares(), batch_size=1, num_workers=32)
    show("workers32", sum(x for b in loader for x in b.tolist()))


def case_no_torch():
    show(threading.active_count(), len(os.listdir("/proc/self/task")))
    show("torch" in sys.modules, subprocess.run(["true"]).returncode)
    pid = os.fork()
    if pid == 0:
        os._exit(4)
    show(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))


def case_no_site():
    show(sys.flags.no_site, sys.flags.isolated, "torch" in sys.modules)
    try:
        import torch  # noqa: F401 (not on the path without site)
        show("torch imported")
    except ImportError:
        show("no torch")
    case_no_torch()


def case_long_run():
    """Iterates for a while (preload_robust.sh kills the session daemon
    meanwhile)."""
    total = 0
    deadline = time.monotonic() + float(os.environ.get("ROBUST_SECONDS", "3"))
    epochs = 0
    while time.monotonic() < deadline:
        for workers in (0, 2):
            total += sum(x for b in DataLoader(Squares(), batch_size=4,
                                               num_workers=workers)
                         for x in b.tolist())
        epochs += 1
    show("long run ok", total // epochs)


if __name__ == "__main__":
    globals()["case_" + sys.argv[1]]()
    sys.stderr.write("end of %s\n" % sys.argv[1])
    sys.exit(3)
