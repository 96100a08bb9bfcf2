# SPDX-License-Identifier: MIT
"""The event catalogue (tracepoints/accwatch_catalogue.def) as the bootstrap's
tests read it, and what the recorder's sequence functions take beside their
fields (accwatch_record_py.c)."""
import re

# function: (field list, keywords besides the fields)
SEQUENCE_CALLS = {"batch": ("batch", {"indices"}),
                  "worker_fetch": ("chunk", {"indices"}),
                  "item_fetch": ("chunk", {"data", "batched"}),
                  "dataset_map": ("dataset_map", {"indices"})}


def read(path):
    """({list: [field, ...]}, {event: (list, sequence)})."""
    text = open(path).read()
    lists = {m.group(1): re.findall(r"F\(X, \w+, (\w+),", m.group(2))
             for m in re.finditer(r"#define ACCWATCH_FIELDS_(\w+)\(F, X\)((?:[^\n]*\\\n)*[^\n]*)", text)}
    events = {name: (fields, sequence)
              for name, fields, sequence in re.findall(r"E\((\w+), \w+, (\w+), \w+, (\w+)\)", text)}
    return lists, events
