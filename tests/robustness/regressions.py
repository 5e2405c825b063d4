#!/usr/bin/env python3
"""The regression corpus of hostile inputs (tests/corpus/regressions.tsv, docs/Fuzzing.md): each
case once crashed, hung, exhausted memory or answered wrongly, and must now run (exit 0) or be
refused with the one-line error the manifest names. Each runs under a time and memory limit.

    tests/robustness/regressions.py NNACCEL CORPUS_DIR WORK_DIR [--timeout SECONDS]

Prints one line per failing case and a summary; exits 1 when a case failed.
"""
import argparse
import os
import resource
import shlex
import subprocess
import sys

MEMORY_LIMIT_BYTES = 4 << 30


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def cases(manifest):
    with open(manifest, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            what, expect, command = line.split("\t")
            yield number, what, expect, command


def check(nnaccel, corpus, work, number, expect, command, timeout):
    """'' when the case holds, else why not."""
    folder = os.path.join(work, f"case{number}")
    os.makedirs(folder, exist_ok=True)
    args = [a.replace("{corpus}", corpus).replace("{work}", folder) for a in shlex.split(command)]
    try:
        r = subprocess.run([nnaccel] + args, cwd=folder, capture_output=True, text=True,
                           timeout=timeout, preexec_fn=limit_memory)
    except subprocess.TimeoutExpired:
        return f"no result within {timeout} s"
    errors = [l for l in r.stderr.splitlines() if not l.startswith("[nnaccel]")]
    if expect == "ok":
        return "" if r.returncode == 0 else f"exit {r.returncode}: {' / '.join(errors)[:300]}"
    kind, _, text = expect.partition(": ")
    code = {"error": 1, "usage": 2}[kind]
    if r.returncode != code:
        return f"exit {r.returncode} (expected {code}): {' / '.join(errors)[:300]}"
    if len(errors) != 1 or not errors[0].startswith("error: ") or text not in errors[0]:
        return f"stderr {errors!r} does not hold {text!r} on one 'error: ' line"
    return ""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("nnaccel")
    p.add_argument("corpus")
    p.add_argument("work")
    p.add_argument("--timeout", type=float, default=120)
    a = p.parse_args()
    manifest = os.path.join(a.corpus, "regressions.tsv")
    failures = total = 0
    for number, what, expect, command in cases(manifest):
        total += 1
        why = check(os.path.abspath(a.nnaccel), os.path.abspath(a.corpus), os.path.abspath(a.work),
                    number, expect, command, a.timeout)
        if why:
            failures += 1
            print(f"FAIL line {number} ({what}): nnaccel {command}: {why}")
    print(f"regression corpus: {total - failures}/{total} cases hold")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
