# SPDX-License-Identifier: MIT
"""Packed indices (tracepoints/accwatch_packed.h) decoded in Python, for the
tests that read a trace with bt2: the words of a _packed event -> its
indices."""
MASK = 2**64 - 1


def _signed(value):
    value &= MASK
    return value - 2**64 if value >= 2**63 else value


def _unzigzag(value):
    return _signed((value >> 1) ^ -(value & 1))


def unpack(words):
    stream = sum(int(word) << (64 * i) for i, word in enumerate(words))
    at = 0

    def get(n):
        nonlocal at
        value = (stream >> at) & ((1 << n) - 1)
        at += n
        if at > 64 * len(words):
            raise ValueError("packed indices: the words end early")
        return value

    def sized():
        return get(get(7))

    form, count = get(1), sized()
    first = _unzigzag(sized())
    if form == 0:
        step = _unzigzag(sized())
        return [_signed(first + i * step) for i in range(count)]
    width = get(7)
    return [_signed(first + get(width)) for _ in range(count)]


def plain(name, fields):
    """A _packed event as the reader hands it on: (name, fields) of the plain
    event, or of the _wide one when an index does not fit 32 bits."""
    if not name.endswith("_packed"):
        return name, fields
    fields = dict(fields)
    indices = unpack(fields.pop("packed"))
    fields.pop("_packed_length", None)
    fields["indices"] = indices
    wide = any(i < 0 or i > 2**32 - 1 for i in indices)
    return name[:-len("_packed")] + ("_wide" if wide else ""), fields


if __name__ == "__main__":
    assert unpack([135531268]) == [1, 2, 3]
