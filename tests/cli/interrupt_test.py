#!/usr/bin/env python3
"""Ctrl-C during `nnaccel simulate`, `compare` and `sweep` (tools/nnaccel/StopOnCtrlC.h): the run
stops at the next layer, the requested report holds the layers that finished (marked
interrupted, their totals only; in compare, the engines after the interrupted one did not run;
in sweep, the point cut short is marked and no new point starts), the process exits 130, and a
second Ctrl-C is not needed.

usage: interrupt_test.py NNACCEL WORK_DIR

It waits for the first "simulating: layer" progress line (printed once the run has taken a
second), then sends SIGINT: an event, not a time limit.
"""
import json
import os
import signal
import subprocess
import sys


def interrupt_at(argv, marker):
    """Runs argv, sends SIGINT at the first stderr line holding marker; (exit code, out, err)."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = []
    for line in p.stderr:
        err.append(line)
        if marker in line:
            p.send_signal(signal.SIGINT)
            break
    rest = p.stderr.read()
    out = p.stdout.read()
    return p.wait(), out, "".join(err) + rest


def check_compare(nnaccel, work):
    """compare: the engine running at Ctrl-C keeps its finished layers, the next does not run."""
    report = os.path.join(work, "compare.json")
    rc, out, err = interrupt_at([nnaccel, "compare", "resnet50", "--archs", "broadcast,systolic",
                                 "--timing-only", "--report", report],
                                "broadcast: simulating: layer")
    failures = []
    if rc != 130:
        failures.append(f"compare: exit code {rc}, expected 130\n{err}")
        return failures
    engines = json.load(open(report))["engines"]
    first, second = engines
    if first["status"] != "interrupted" or not first["report"]["interrupted"]:
        failures.append(f"compare: broadcast is {first['status']}, {first['report']}")
    if second["status"] != "interrupted" or second["report"] is not None:
        failures.append(f"compare: systolic is {second['status']} and ran")
    if "INTERRUPTED after" not in out or "not run (Ctrl-C)" not in out:
        failures.append(f"compare: the totals do not say what was cut:\n{out}")
    return failures


def check_sweep(nnaccel, work):
    """sweep: the points that finished stay ranked, the one cut short is marked, no more start."""
    csv = os.path.join(work, "sweep.csv")
    rc, out, err = interrupt_at([nnaccel, "sweep", "resnet50", "--arch", "broadcast", "--param",
                                 "pe_array.columns=4,8,16", "-j", "1", "--timing-only", "--csv",
                                 csv], "1/3 points")
    if rc != 130:
        return [f"sweep: exit code {rc}, expected 130\n{err}"]
    rows = [line.split(",") for line in open(csv).read().splitlines() if not line.startswith("#")]
    status = [row[rows[0].index("status")] for row in rows[1:]]
    # The first point finished; the signal lands while the second runs (it is then
    # 'interrupted') or between the two (it never starts). No third point starts.
    if status not in (["ok"], ["ok", "interrupted"]):
        return [f"sweep: point statuses {status}, expected ok and at most one interrupted\n{err}"]
    if f"{len(status)} of 3 points ran" not in err:
        return [f"sweep: stderr does not say what ran:\n{err}"]
    return []


def main():
    nnaccel, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, "interrupted.json")
    csv = os.path.join(work, "interrupted.csv")
    if os.path.exists(report):
        os.remove(report)
    p = subprocess.Popen([nnaccel, "simulate", "resnet50", "--arch", "broadcast", "--report",
                          report, "--csv", csv], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    err = []
    for line in p.stderr:
        err.append(line)
        if "simulating: layer" in line:
            p.send_signal(signal.SIGINT)
            break
    rest_err = p.stderr.read()
    out = p.stdout.read()
    rc = p.wait()
    err = "".join(err) + rest_err
    failures = []
    if rc != 130:
        failures.append(f"exit code {rc}, expected 130\n{err}")
    r = json.load(open(report))
    done = r["interrupted"]["layers_done"]
    planned = r["interrupted"]["layers_planned"]
    if not 0 < done < planned or len(r["layers"]) != done:
        failures.append(f"interrupted {r['interrupted']} with {len(r['layers'])} layers")
    if r["total"]["cycles"] != sum(l["cycles"] for l in r["layers"]):
        failures.append("the total is not the sum of the finished layers")
    if not (r["verdict"]["checked"] and r["verdict"]["passed"]):
        failures.append(f"the finished layers were not verified: {r['verdict']}")
    if f"INTERRUPTED after {done} of {planned} layers" not in out:
        failures.append(f"no INTERRUPTED verdict line in the table:\n{out[-500:]}")
    if f"the report holds the {done} of {planned} layers that finished" not in err:
        failures.append(f"stderr does not say what was written:\n{err}")
    rows = open(csv).read().splitlines()
    if len(rows) != done + 2 or not all(row.endswith(",interrupted") for row in rows[1:]):
        failures.append(f"CSV: {len(rows)} lines, expected {done + 2} marked interrupted")
    failures += check_compare(nnaccel, work)
    failures += check_sweep(nnaccel, work)
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"interrupted after {done} of {planned} layers, exit 130, report and CSV written")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
