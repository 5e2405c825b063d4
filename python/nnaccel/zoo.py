"""The built-in models (``nnaccel zoo``): seeded random weights, fixed input shapes."""

from . import _core


def list():  # noqa: A001 - the CLI's name
    """One dict per zoo model: name, description, input_shape, classifier, params, macs."""
    return _core.zoo_list()


def export(name, path, seed=2026):
    """Write zoo model ``name`` (weights drawn from ``seed``) as an ONNX file at ``path``."""
    _core.zoo_export(name, str(path), seed)
    return str(path)
