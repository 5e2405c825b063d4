"""Runs every script in examples/ on a small model, as a user would (tests/python)."""

import os
import subprocess
import sys

import pytest

EXAMPLES = os.environ.get("NNACCEL_EXAMPLES",
                          os.path.join(os.path.dirname(__file__), "..", "..", "examples"))


def run_example(name, *args, cwd):
    result = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args], cwd=cwd,
                            capture_output=True, text=True, env=dict(os.environ, MPLBACKEND="Agg"))
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_simulate_and_plot(tmp_path):
    out = run_example("simulate_and_plot.py", "lenet5", "broadcast", "cycles.png", cwd=tmp_path)
    assert "VERIFIED" in out
    assert "wrote cycles.png" in out and (tmp_path / "cycles.png").stat().st_size > 1000


def test_array_sweep_pareto(tmp_path):
    out = run_example("array_sweep_pareto.py", "lenet5", "sweep.png", cwd=tmp_path)
    assert "16 points" in out and "*" in out and "fewest cycles" in out
    assert (tmp_path / "sweep.png").stat().st_size > 1000


def test_compare_your_model(tmp_path):
    import nnaccel
    path = nnaccel.zoo.export("lenet5", tmp_path / "mine.onnx")
    out = run_example("compare_your_model.py", path, cwd=tmp_path)
    for engine in ("systolic", "sparse", "broadcast", "stream"):
        assert engine in out
    assert "VERIFIED" in out
