# SPDX-License-Identifier: MIT
"""Validates SARIF logs against the OASIS SARIF 2.1.0 schema (errata 01,
tests/data/sarif-schema-2.1.0.json, from oasis-tcs/sarif-spec), with the
jsonschema of the interpreter (Debian's python3-jsonschema). Prints each
violation with its path; exits 1 when there is one.

usage: sarif_validate.py FILE...
"""
import json
import os
import sys

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sarif-schema-2.1.0.json")


def main():
    schema = json.load(open(SCHEMA))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    bad = 0
    for path in sys.argv[1:]:
        for error in sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.path)):
            where = "/" + "/".join(str(p) for p in error.path)
            print(f"{path}: at {where}: {error.message}")
            bad += 1
    sys.exit(1 if bad else 0)


main()
