# SPDX-License-Identifier: MIT
"""babeltrace2's text output with every _packed and _bits event written as
the plain event the reader hands on (packed.plain): the event's name
without the suffix, its fields with the packed words decoded, the indices
as a list. For the shell tests that grep a trace's events by field.

  babeltrace2 TRACE | python3 plain_events.py"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from packed import plain  # noqa: E402

EVENT = re.compile(r"^(.*? accwatch:)(\w+_(?:packed|bits))(: \{ .*? \}, \{ )(.*) \}$")
FIELD = re.compile(r"(\w+) = (\[ .*? \]|\"(?:[^\"\\]|\\.)*\"|[^,]+)(?:, |$)")


def rewrite(line):
    m = EVENT.match(line)
    if not m:
        return line
    fields = {}
    for name, value in FIELD.findall(m.group(4)):
        if value.startswith("["):
            fields[name] = [int(w) for w in re.findall(r"\[\d+\] = (\d+)", value)]
        elif value.startswith('"'):
            fields[name] = value
        else:
            fields[name] = int(value)
    name, fields = plain(m.group(2), fields)
    text = []
    for key, value in fields.items():
        if isinstance(value, list):
            value = "[ " + ", ".join(f"[{i}] = {v}" for i, v in enumerate(value)) + " ]"
        text.append(f"{key} = {value}")
    return f"{m.group(1)}{name}{m.group(3)}{', '.join(text)} }}"


def main():
    for line in sys.stdin:
        print(rewrite(line.rstrip("\n")))


if __name__ == "__main__":
    main()
