#!/usr/bin/python3
"""Validate nkctl JSON outputs against doc/nkctl.schema.json.

    jsoncheck.py SCHEMA DIR [PROGRAM]
                                every DIR/*.json (the command in *.cmd beside
                                it, named after PROGRAM: nkctl by default)

A file may hold several documents one after the other (-batch prints one per
line). Prints one line per invalid document and exits 1 if any; else prints
the count.
"""
import glob
import json
import os
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    validator = jsonschema.Draft202012Validator(schema)
    program = sys.argv[3] if len(sys.argv) > 3 else "nkctl"
    files = sorted(glob.glob(os.path.join(sys.argv[2], "*.json")))
    bad = 0
    for f in files:
        cmd = open(f[:-5] + ".cmd").read().strip() if os.path.exists(f[:-5] + ".cmd") else "?"
        text = open(f).read()
        docs, pos, dec = [], 0, json.JSONDecoder()
        try:
            while pos < len(text.rstrip()):
                doc, pos = dec.raw_decode(text, pos)
                docs.append(doc)
                while pos < len(text) and text[pos].isspace():
                    pos += 1
        except ValueError as e:
            print(f"not JSON: {program} {cmd}: {e}")
            bad += 1
            continue
        for doc in docs:
            errors = list(validator.iter_errors(doc))
            if errors:
                best = jsonschema.exceptions.best_match(errors)
                path = "/".join(str(p) for p in best.absolute_path)
                print(f"schema: {program} {cmd}: at /{path}: {best.message[:300]}")
                bad += 1
    if bad:
        sys.exit(1)
    print(len(files))


if __name__ == "__main__":
    main()
