# SPDX-License-Identifier: MIT
"""The bootstrap's calls of the recorder against the event catalogue: every
_aw.<event>(...) names an event of tracepoints/accwatch_catalogue.def and
passes, by keyword only, fields of that event's list (or the sequence's own
keywords). A misspelt keyword would leave its field absent in every trace
without an error (the recorder never raises), so it is caught here.
Usage: check_calls.py CATALOGUE BOOT_DIR (the parts of the bootstrap)"""
import ast
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import catalogue  # noqa: E402

HELPERS = {"hot_methods", "hot_descriptors", "hot_forget", "instancemethod", "call_before", "call_around", "around",
           "recording", "debug"}
CONSTANTS = {"UNKNOWN", "BOOT_PREFIX", "DEBUG", "HOT_SLOTS"}
# Functions whose dict(...) results are passed as an event's **fields.
FIELD_BUILDERS = {"_wrap_fields": "loader_wrap", "_stream_shard": "stream_shard",
                  "_on_fetch": "worker_fetch_end"}


def main():
    lists, events = catalogue.read(sys.argv[1])
    problems, calls = [], 0
    for part in sorted(glob.glob(os.path.join(sys.argv[2], "*.py"))):
        calls += check_part(part, lists, events, problems)
    if calls < 10:
        problems.append("only %d recorder calls found: the check reads the wrong files" % calls)
    for problem in problems:
        print("FAIL:", problem)
    print("%d calls checked, %d problems" % (calls, len(problems)))
    return 1 if problems else 0


def check_part(path, lists, events, problems):
    """The calls of one part of the bootstrap; their count."""
    name_of = os.path.basename(path)
    tree = ast.parse(open(path).read(), path)
    calls = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "_aw" and not isinstance(getattr(node, "ctx", None), ast.Store):
            name = node.attr
            if name not in CONSTANTS and name not in HELPERS and name not in catalogue.SEQUENCE_CALLS \
                    and (name not in events or events[name][1] != "none"):
                problems.append("%s:%d: _aw.%s is no recorder function" % (name_of, node.lineno, name))
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "_aw"):
            continue
        name = node.func.attr
        if name in HELPERS:
            continue
        calls += 1
        if name in catalogue.SEQUENCE_CALLS:
            field_list, extra = catalogue.SEQUENCE_CALLS[name]
        elif name in events:
            field_list, extra = events[name][0], set()
        else:
            continue  # reported above
        allowed = set(lists[field_list]) | extra
        if node.args:
            problems.append("%s:%d: _aw.%s called with positional arguments" % (name_of, node.lineno, name))
        for keyword in node.keywords:
            if keyword.arg is None:  # **fields: checked where it is built
                continue
            if keyword.arg not in allowed:
                problems.append("%s:%d: _aw.%s has no field %s (fields: %s)"
                                % (name_of, node.lineno, name, keyword.arg, ", ".join(sorted(allowed))))
    # The dicts that become an event's **fields, built by these functions.
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in FIELD_BUILDERS:
            event = FIELD_BUILDERS[node.name]
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "dict":
                    for keyword in call.keywords:
                        if keyword.arg not in lists[events[event][0]]:
                            problems.append("%s:%d: %s has no field %s"
                                            % (name_of, call.lineno, event, keyword.arg))
    return calls


if __name__ == "__main__":
    sys.exit(main())
