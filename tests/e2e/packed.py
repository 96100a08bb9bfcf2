# SPDX-License-Identifier: MIT
"""Packed indices (tracepoints/accwatch_packed.h) decoded in Python, for the
tests that read a trace with bt2: the words of a _packed or _bits event ->
its indices (and a _bits event's fields)."""
import os
import re

MASK = 2**64 - 1
CATALOGUE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                         "tracepoints", "accwatch_catalogue.def")


def _bits_heads(path):
    """{event: ((field, coding), ...)}: the integer fields leading a _bits
    event's words, in order, as the catalogue's ACCWATCH_BITS_HEAD_<event>
    lists them (coding "short", "short_zigzag" or "sized_zigzag"); offset
    and total follow as its place."""
    with open(path) as f:
        text = f.read()
    heads = {m.group(1): tuple(re.findall(r"H\(X, (\w+), (\w+)\)", m.group(2)))
             for m in re.finditer(r"#define ACCWATCH_BITS_HEAD_(\w+)_bits\(H, X\)((?:[^\n]*\\\n)*[^\n]*)", text)}
    if sorted(heads) != ["batch", "dataset_map", "worker_fetch"] or not all(heads.values()):
        raise ValueError(f"{path}: the _bits heads not found")
    return heads


BITS_HEADS = _bits_heads(CATALOGUE)


def _signed(value):
    value &= MASK
    return value - 2**64 if value >= 2**63 else value


def _unzigzag(value):
    return _signed((value >> 1) ^ -(value & 1))


class _Bits:
    def __init__(self, words):
        self.stream = sum(int(word) << (64 * i) for i, word in enumerate(words))
        self.end = 64 * len(words)
        self.at = 0

    def get(self, n):
        value = (self.stream >> self.at) & ((1 << n) - 1)
        self.at += n
        if self.at > self.end:
            raise ValueError("packed indices: the words end early")
        return value

    def sized(self):
        return self.get(self.get(7))

    def short(self):
        code = self.get(5)
        return self.get(32 if code == 31 else code)

    def indices(self):
        form, count = self.get(1), self.sized()
        first = _unzigzag(self.sized())
        if form == 0:
            step = _unzigzag(self.sized())
            return [_signed(first + i * step) for i in range(count)]
        width = self.get(7)
        return [_signed(first + self.get(width)) for _ in range(count)]


def unpack(words):
    """The indices of a _packed event's words."""
    return _Bits(words).indices()


def unpack_bits(event, words):
    """(fields, indices) of the words of event's _bits event (event: batch,
    worker_fetch or dataset_map)."""
    bits = _Bits(words)
    fields = {}
    for name, how in BITS_HEADS[event]:
        value = bits.short() if how.startswith("short") else bits.sized()
        fields[name] = _unzigzag(value) if how.endswith("_zigzag") else value
    place = bits.get(1)
    if place:
        fields["offset"], fields["total"] = bits.short(), bits.short()
    indices = bits.indices()
    if not place:
        fields["offset"], fields["total"] = 0, len(indices)
    return fields, indices


def plain(name, fields):
    """A _packed or _bits event as the reader hands it on: (name, fields) of
    the plain event, or of the _wide one when an index does not fit 32
    bits."""
    for suffix in ("_packed", "_bits"):
        if name.endswith(suffix):
            break
    else:
        return name, fields
    base = name[:-len(suffix)]
    fields = dict(fields)
    words = fields.pop("packed")
    fields.pop("_packed_length", None)
    if suffix == "_bits":
        head, indices = unpack_bits(base, words)
        fields.update(head)
    else:
        indices = unpack(words)
    fields["indices"] = indices
    wide = any(i < 0 or i > 2**32 - 1 for i in indices)
    return base + ("_wide" if wide else ""), fields


if __name__ == "__main__":
    assert unpack([135531268]) == [1, 2, 3]
