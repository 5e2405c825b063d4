"""nnaccel from Python: compile CNNs for accelerator engines, simulate them, verify every output
bit against the reference executor, and get cycles, utilization, traffic and energy.

The same operations as the command-line tool, with numpy arrays in and out::

    import nnaccel
    report = nnaccel.simulate("resnet18", arch="systolic", preset="server")
    print(report.cycles, report.verified)
    df = report.to_pandas()            # per-layer rows, when pandas is installed

Errors are ``nnaccel.Error`` with the CLI's one-line message and a ``kind`` ("model",
"unsupported", "config", "usage", "io"). Long calls take ``progress=callable(what, done,
total)`` and stop on Ctrl-C (KeyboardInterrupt). python/README.md documents the package.
"""

import json

from . import _core
from ._results import Comparison, Report, Sweep
from . import zoo

Error = _core.Error
Model = _core.Model
Error.__module__ = Model.__module__ = __name__  # shown as nnaccel.Error in tracebacks

__all__ = ["Error", "Model", "Report", "Comparison", "Sweep", "load", "info", "run", "simulate",
           "compare", "sweep", "engines", "presets", "config", "zoo"]


def load(model, dims=None, batch=None, inputs=None):
    """Load ``model`` (an .onnx path or a zoo name) into a Model other calls reuse.

    ``dims`` binds symbolic dimensions by name ({"height": 224}); the shapes of ``inputs``
    (numpy arrays, one per model input) bind the others; ``batch`` sets a batch dimension.
    """
    if isinstance(model, Model):
        # A loaded model's shapes are bound; rebinding them silently would run another model.
        if dims or batch is not None:
            raise Error(f"model '{model.source}' is already loaded with its shapes bound; "
                        "pass dims and batch to nnaccel.load() instead")
        return model
    return _core.load(str(model), dict(dims or {}), batch, _as_list(inputs))


def info(model, dims=None, batch=None):
    """The model's inputs, outputs, symbolic-dim bindings and per-layer summary, as a dict:
    the fields of ``nnaccel info --json``."""
    return json.loads(_core.info_json(load(model, dims, batch)))


def run(model, inputs=None, dtype="f32", seed=0x6e6e61636365, calibration=None,
        method="minmax", percentile=99.99, equalize=False, dims=None, batch=None,
        asymmetric=False, bias_correction=False):
    """Run the reference executor: fp32 outputs, or with ``dtype="int8"`` the int8 executor's
    dequantized outputs (calibrated on ``calibration``, a list of input sets, else on
    ``inputs``, else on seeded random inputs; ``asymmetric``: activations with zero points, as
    ``--asymmetric``; ``bias_correction``: biases shifted by their mean int8 error, as
    ``--bias-correction``). Returns a list of numpy arrays."""
    inputs = _as_list(inputs)
    m = load(model, dims, batch, inputs)
    return _core.run(m, inputs, dtype, seed, calibration, method, percentile, equalize,
                     asymmetric, bias_correction)


def simulate(model, arch=None, preset=None, config=None, overrides=None, batch=None,
             inputs=None, dtype="int8", timing_only=False, baseline=False, host=None,
             engine_options=None, threads=1, calibration=None, method="minmax",
             percentile=99.99, equalize=False, dims=None, progress=None, asymmetric=False,
             bias_correction=False):
    """Compile ``model`` for ``arch`` (default: the first registered engine, as the CLI's;
    preset name or ``config`` YAML file, ``overrides`` a dict
    of dotted config keys), run it on the simulator, verify it, and return its Report."""
    inputs = _as_list(inputs)
    m = load(model, dims, batch, inputs)
    text = _core.simulate(m, inputs, arch or _default_arch(), preset or "", str(config or ""),
                          _settings(overrides), dtype, timing_only, baseline, _settings(host),
                          dict(engine_options or {}), threads, calibration, method, percentile,
                          equalize, asymmetric, bias_correction, progress)
    return Report.from_json(text)


def compare(model, budget=None, engines=None, timing_only=False, batch=None, dims=None,
            progress=None):
    """Run ``model`` on every engine (or ``engines``) under one equal-resource budget (a
    budget YAML file; None: the shipped default) and return the Comparison."""
    m = load(model, dims, batch)
    text = _core.compare(m, str(budget or ""), list(engines or []), timing_only, progress)
    return Comparison.from_json(text)


def sweep(model, arch=None, params=None, preset=None, config=None, overrides=None,
          objective="cycles", pareto=None, threads=1, timing_only=False, host=None, batch=None,
          dims=None, progress=None):
    """Simulate every point of the grid ``params`` ({dotted key: [values]}) and return the
    Sweep, its points ranked by ``objective`` and marked on the Pareto front of ``pareto``
    (default: cycles and energy)."""
    m = load(model, dims, batch)
    grid = [f"{key}={','.join(_scalar(v) for v in values)}"
            for key, values in (params or {}).items()]
    points = _core.sweep(m, arch or _default_arch(), preset or "", str(config or ""), _settings(overrides), grid,
                         objective, list(pareto or []), threads, timing_only, _settings(host),
                         progress)
    # The values come back as the YAML scalars the grid was given; hand back the caller's own.
    given = {key: {_scalar(v): v for v in values} for key, values in (params or {}).items()}
    for p in points:
        p["params"] = {k: given[k].get(v, v) for k, v in p["params"].items()}
    return Sweep(points, list(given))


def engines():
    """The registered engines: name, description, presets, default preset, fp32 path."""
    return _core.engines()


def presets(arch):
    """The shipped presets of engine ``arch``."""
    for e in _core.engines():
        if e["name"] == arch:
            return list(e["presets"])
    raise Error(f"unknown engine '{arch}' (engines: "
                f"{', '.join(e['name'] for e in _core.engines())})")


def config(arch, preset=None, file=None, overrides=None):
    """The effective config of ``arch`` (a preset or a YAML ``file``, with ``overrides``) as
    YAML text, in the engine's schema layout."""
    return _core.config_yaml(arch, preset or "", str(file or ""), _settings(overrides))


def _default_arch():
    """The engine the CLI uses when --arch is not given: the first registered one."""
    return _core.engines()[0]["name"]


def _as_list(inputs):
    if inputs is None:
        return None
    if isinstance(inputs, (list, tuple)):
        return list(inputs)
    return [inputs]


def _scalar(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    return str(value)


def _settings(mapping):
    """{key: value} (or "key=value" strings) as the core's "key=value" list."""
    if not mapping:
        return []
    if isinstance(mapping, dict):
        return [f"{k}={_scalar(v)}" for k, v in mapping.items()]
    return [str(s) for s in mapping]
