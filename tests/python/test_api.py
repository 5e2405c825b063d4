"""Tests of the Python package (python/README.md), run by ctest (`python_api`) with Debian's
python3 and pytest against the build tree's package (PYTHONPATH=<build>/python)."""

import json
import os
import signal
import subprocess
import threading

import numpy as np
import pytest

import nnaccel


def test_engines_and_presets_come_from_the_registry():
    names = [e["name"] for e in nnaccel.engines()]
    assert names == ["systolic", "sparse", "broadcast", "stream"]
    assert "server" in nnaccel.presets("systolic")
    assert "name: fig44" in nnaccel.config("stream", preset="fig44")


def test_config_overrides_apply_through_the_schema():
    text = nnaccel.config("systolic", preset="server", overrides={"array.rows": 32})
    assert "rows: 32" in text


def test_a_bad_override_is_a_config_error_naming_the_key():
    with pytest.raises(nnaccel.Error) as e:
        nnaccel.config("systolic", overrides={"array.rowz": 32})
    assert e.value.kind == "config"
    assert "array.rowz" in str(e.value)


def test_simulate_returns_the_report_verified():
    r = nnaccel.simulate("lenet5", arch="systolic")
    assert r.verified is True
    assert r.cycles == r.total["cycles"] > 0
    assert len(r.layers) > 5 and all("cycles" in layer for layer in r.layers)
    d = r.to_dict()
    assert d["engine"] == "systolic" and d["model"] == "lenet5"
    assert json.loads(r.to_json())["total"]["cycles"] == r.cycles
    assert "VERIFIED" in repr(r)
    # Priced through the technology model: the server preset's node, its area, and leakage
    # over the run's time on top of the dynamic energy.
    assert r.technology["node"] == "7nm"
    assert r.area_mm2 == pytest.approx(sum(d["area_mm2_by_component"].values()))
    assert r.energy_per_inference_pj == pytest.approx(r.energy_pj + r.static_energy_pj)
    assert r.static_energy_pj > 0


def test_simulate_matches_the_cli_report_for_the_same_run(tmp_path):
    # The same model, engine and seeded input: the package and the CLI give the same report.
    cli = os.environ.get("NNACCEL_CLI")
    if not cli:
        pytest.skip("NNACCEL_CLI (the nnaccel executable) is not set")
    out = tmp_path / "cli.json"
    subprocess.run([cli, "simulate", "lenet5", "--arch", "broadcast", "--report", str(out)],
                   check=True, capture_output=True)
    r = nnaccel.simulate("lenet5", arch="broadcast", threads=2)
    assert r.to_dict() == json.loads(out.read_text())


def test_simulate_with_batch_and_overrides():
    one = nnaccel.simulate("lenet5", arch="systolic", timing_only=True)
    four = nnaccel.simulate("lenet5", arch="systolic", batch=4, timing_only=True)
    assert four.cycles > one.cycles
    small = nnaccel.simulate("lenet5", arch="systolic", overrides={"array.rows": 16},
                             timing_only=True)
    assert small.cycles != one.cycles


def test_numpy_inputs_run_and_bind_the_batch():
    x = np.random.default_rng(3).standard_normal((1, 1, 32, 32)).astype(np.float32)
    fp32 = nnaccel.run("lenet5", inputs=[x])
    assert len(fp32) == 1 and fp32[0].shape == (1, 10) and fp32[0].dtype == np.float32
    int8 = nnaccel.run("lenet5", inputs=x, dtype="int8")
    assert int8[0].shape == (1, 10)
    assert np.corrcoef(fp32[0].ravel(), int8[0].ravel())[0, 1] > 0.9
    r = nnaccel.simulate("lenet5", arch="sparse", inputs=[x])
    assert r.verified is True


def test_asymmetric_int8_runs_and_simulates_bit_exactly():
    # Activations with zero points (the CLI's --asymmetric): on the int8 executor and on an
    # engine, which must verify against it and say so in its summary.
    x = np.random.default_rng(4).standard_normal((1, 1, 32, 32)).astype(np.float32)
    fp32 = nnaccel.run("lenet5", inputs=[x])
    int8 = nnaccel.run("lenet5", inputs=[x], dtype="int8", asymmetric=True)
    assert np.corrcoef(fp32[0].ravel(), int8[0].ravel())[0, 1] > 0.9
    r = nnaccel.simulate("lenet5", arch="systolic", inputs=[x], asymmetric=True)
    assert r.verified is True
    assert "asymmetric activations" in r.to_dict()["summary"]["int8 scales"]


def test_bias_corrected_int8_runs_and_simulates_bit_exactly():
    # The CLI's --bias-correction: the int8 executor's outputs move, and an engine verifies
    # against the corrected model and says how many channels moved.
    x = np.random.default_rng(5).standard_normal((1, 1, 32, 32)).astype(np.float32)
    plain = nnaccel.run("lenet5", inputs=[x], dtype="int8")
    corrected = nnaccel.run("lenet5", inputs=[x], dtype="int8", bias_correction=True)
    assert not np.array_equal(plain[0], corrected[0])
    r = nnaccel.simulate("lenet5", arch="systolic", inputs=[x], bias_correction=True)
    assert r.verified is True
    assert "bias corrected in" in r.to_dict()["summary"]["int8 scales"]


def test_float64_arrays_are_narrowed_and_a_wrong_shape_is_an_error():
    x = np.zeros((1, 1, 32, 32))  # float64
    assert nnaccel.run("lenet5", inputs=[x])[0].shape == (1, 10)
    with pytest.raises(nnaccel.Error) as e:
        nnaccel.run("lenet5", inputs=[np.zeros((1, 3, 32, 32), np.float32)])
    assert e.value.kind == "usage"
    with pytest.raises(nnaccel.Error):
        nnaccel.run("lenet5", inputs=[np.zeros((1, 1, 32, 32), np.complex64)])


def test_errors_carry_the_one_line_message_and_kind():
    with pytest.raises(nnaccel.Error) as e:
        nnaccel.simulate("lenet", arch="systolic")
    assert e.value.kind == "usage"
    assert "did you mean 'lenet5'" in str(e.value)
    with pytest.raises(nnaccel.Error) as e:
        nnaccel.simulate("lenet5", arch="systolc")
    assert "systolic" in str(e.value)
    with pytest.raises(nnaccel.Error) as e:
        nnaccel.simulate("lenet5", arch="stream", dtype="fp32")
    assert e.value.kind == "usage"
    with pytest.raises(nnaccel.Error) as e:
        nnaccel.simulate("lenet5", arch="sparse", engine_options={"threads": 9})
    assert "threads" in str(e.value)


def test_a_malformed_model_file_is_a_model_error(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a protobuf")
    with pytest.raises(nnaccel.Error) as e:
        nnaccel.info(str(bad))
    assert str(bad) in str(e.value)


def test_info_is_the_cli_info_json():
    i = nnaccel.info("resnet18")
    cli = os.environ.get("NNACCEL_CLI")
    if cli:
        out = subprocess.run([cli, "info", "resnet18", "--json"], check=True,
                             capture_output=True, text=True).stdout
        assert json.loads(out) == i
    assert i["total_macs"] > 1.7e9
    assert i["inputs"][0]["shape"] == [1, 3, 224, 224]
    convs = [layer for layer in i["layers"] if layer["op"] == "Conv"]
    assert len(convs) == 20 and convs[0]["window"]["kernel"] == [7, 7]


def test_a_loaded_model_is_reused_across_calls():
    m = nnaccel.load("lenet5")
    assert m.name == "lenet5"
    a = nnaccel.simulate(m, arch="stream", timing_only=True)
    b = nnaccel.simulate(m, arch="broadcast", timing_only=True)
    assert a.engine == "stream" and b.engine == "broadcast"


def test_zoo_list_and_export(tmp_path):
    names = [z["name"] for z in nnaccel.zoo.list()]
    assert "resnet18" in names and "lenet5" in names
    path = nnaccel.zoo.export("lenet5", tmp_path / "lenet5.onnx")
    r = nnaccel.simulate(path, arch="systolic", timing_only=True)
    assert r.cycles == nnaccel.simulate("lenet5", arch="systolic", timing_only=True).cycles


def test_compare_runs_every_engine_under_the_budget():
    c = nnaccel.compare("lenet5", timing_only=True)
    assert set(c.reports) | set(c.errors) == {"systolic", "sparse", "broadcast", "stream"}
    assert all(r.cycles > 0 for r in c.reports.values())
    assert c.budget["multipliers"] > 0


def test_sweep_points_and_pareto_front():
    s = nnaccel.sweep("lenet5", arch="systolic", params={"array.rows": [16, 32, 64]},
                      timing_only=True, threads=2)
    assert len(s) == 3
    assert [p["params"]["array.rows"] for p in s.points] == [16, 32, 64]
    assert all(p["status"] == "ok" for p in s.points)
    assert s.pareto() and s.best() in s.points


def test_progress_callback_is_called():
    calls = []
    nnaccel.simulate("lenet5", arch="systolic",
                     progress=lambda what, done, total: calls.append((what, done, total)))
    assert calls and all(isinstance(c[0], str) for c in calls)


def test_a_callback_exception_stops_the_run():
    def fail(what, done, total):
        raise ValueError("stop here")
    with pytest.raises(ValueError, match="stop here"):
        nnaccel.simulate("lenet5", arch="systolic", progress=fail)


def test_ctrl_c_interrupts_a_run():
    # SIGINT arrives while the run is in nnaccel's code (the GIL released); the next progress
    # point raises it as KeyboardInterrupt.
    m = nnaccel.load("vgg16")
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            nnaccel.simulate(m, arch="systolic")
    finally:
        timer.cancel()


def test_results_as_pandas_frames():
    pandas = pytest.importorskip("pandas")
    r = nnaccel.simulate("lenet5", arch="systolic", timing_only=True)
    frame = r.to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame["name"]) == [layer["name"] for layer in r.layers]
    assert frame["cycles"].sum() == r.cycles
    assert "dram.read_bytes" in frame.columns
    s = nnaccel.sweep("lenet5", arch="systolic", params={"array.cols": [32, 64]},
                      timing_only=True)
    assert list(s.to_pandas()["params.array.cols"]) == [32, 64]


def test_bad_arguments_are_one_line_usage_errors():
    cases = [
        (lambda: nnaccel.simulate("lenet5", batch=0), "batch 0 must be at least 1"),
        (lambda: nnaccel.run("lenet5", dtype="int4"), "'int4' is not a dtype"),
        (lambda: nnaccel.simulate("lenet5", dtype="int4"), "'int4' is not a dtype"),
        (lambda: nnaccel.run("lenet5", dtype="int8", method="best"),
         "'best' is not a calibration method"),
        (lambda: nnaccel.simulate("lenet5", arch="broadcast", engine_options={"exact": 1}),
         "has no option 'exact'"),
        (lambda: nnaccel.simulate("lenet5", preset="server", config="x.yaml"),
         "give a preset or a config file, not both"),
        (lambda: nnaccel.simulate("lenet5", dims={"h": 3}), "dims apply only to .onnx files"),
        (lambda: nnaccel.sweep("lenet5", params={"array.rows": [16]}, threads=0),
         "threads 0 must be at least 1"),
        (lambda: nnaccel.simulate("lenet5", host={"link_bytes_per_second": -1}),
         "link_bytes_per_second"),
    ]
    for call, message in cases:
        with pytest.raises(nnaccel.Error) as e:
            call()
        assert message in str(e.value)
        assert "\n" not in str(e.value)


def test_a_loaded_model_refuses_new_shape_bindings():
    m = nnaccel.load("lenet5")
    with pytest.raises(nnaccel.Error, match="already loaded"):
        nnaccel.simulate(m, batch=4)
