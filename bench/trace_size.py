# SPDX-License-Identifier: MIT
"""Bytes per index of a recorded trace: one rank drawing one epoch of a fast
loop (bench/loop.py --raw, batches of 64) under accwatch-run, shuffled over
2^20 and 2^24 - 1 samples (20 and 24 bits of information an index) and
sequential. Prints, for each, the trace's size on disk per index drawn, and
the indices' own part of the batch events (the packed words, with the
fields that lead them in a _bits event) against what
the same indices take as 32-bit integers (the events before packing), both
counted on the recorded events (read with Debian's python3-bt2)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3"
CASES = (("shuffled, 2^20 samples", 2**20, []),
         ("shuffled, 2^24 - 1 samples", 2**24 - 1, []),
         ("sequential, 2^20 samples", 2**20, ["--shard"]))


def du(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def batch_bytes(trace):
    """(indices, bytes of their packed words, bytes as uint32) over the batch
    events of a trace."""
    import bt2
    indices = packed = 0
    sys.path.insert(0, os.path.join(SOURCE, "tests", "e2e"))
    from packed import unpack, unpack_bits
    for message in bt2.TraceCollectionMessageIterator(trace):
        if type(message) is not bt2._EventMessageConst:
            continue
        if message.event.name not in ("accwatch:batch_bits", "accwatch:batch_packed"):
            continue
        words = [int(w) for w in message.event.payload_field["packed"]]
        if message.event.name.endswith("_bits"):
            indices += len(unpack_bits("batch", words)[1])
        else:
            indices += len(unpack(words))
        packed += 8 * len(words)
    return indices, packed, 4 * indices


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    opts = parser.parse_args()
    work = tempfile.mkdtemp(prefix="accwatch-bench-size-")
    rows = []
    try:
        for name, samples, extra in CASES:
            trace = os.path.join(work, "trace")
            subprocess.run([os.path.join(opts.build, "bin", "accwatch-run"), "-q", "-o", trace, "--",
                            PYTHON, os.path.join(HERE, "loop.py"), "--raw", "--samples", str(samples)]
                           + extra, check=True, stdout=subprocess.DEVNULL)
            indices, packed, plain = batch_bytes(trace)
            if indices != samples:
                raise SystemExit(f"bench: {name}: {indices} indices in the trace, not {samples}")
            rows.append((name, samples, du(trace), packed, plain))
            shutil.rmtree(trace)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("# one rank, one epoch, batches of 64; bytes per index drawn")
    print(f"{'case':<28} {'indices':>10} {'trace':>8} {'packed words':>13} {'as uint32':>10}")
    for name, samples, size, packed, plain in rows:
        print(f"{name:<28} {samples:>10,} {size / samples:>8.2f} {packed / samples:>13.2f} "
              f"{plain / samples:>10.2f}")


if __name__ == "__main__":
    main()
