"""Results of simulate, compare and sweep as Python objects over the run report's JSON
(docs/report-schema.md): the same fields as ``nnaccel simulate --report``."""

import json


def _flat(row):
    """A report row with its nested counters flattened to dotted columns ("dram.read_bytes")."""
    out = {}
    for key, value in row.items():
        if isinstance(value, dict):
            for sub, v in value.items():
                out[f"{key}.{sub}"] = v
        else:
            out[key] = value
    return out


def _frame(rows):
    try:
        import pandas
    except ImportError as e:  # pandas is optional
        raise ImportError("to_pandas() needs pandas (Debian: python3-pandas)") from e
    return pandas.DataFrame([_flat(r) for r in rows])


class Report:
    """One simulation: ``cycles``, ``verified``, ``layers`` (dicts with the JSON report's
    fields), ``total`` (the totals row), and the whole report as ``to_dict()``/``to_json()``."""

    def __init__(self, data):
        self._data = data

    @classmethod
    def from_json(cls, text):
        return cls(json.loads(text))

    @property
    def engine(self):
        return self._data["engine"]

    @property
    def config(self):
        return self._data["config"]

    @property
    def layers(self):
        return self._data["layers"]

    @property
    def total(self):
        return self._data["total"]

    @property
    def cycles(self):
        return self.total["cycles"]

    @property
    def energy_pj(self):
        return self.total["energy_pj"]

    @property
    def static_energy_pj(self):
        """Leakage over the run's time (0 for an engine without a technology)."""
        return self._data["static_energy_pj"]

    @property
    def energy_per_inference_pj(self):
        """Dynamic plus static energy of the run."""
        return self._data["energy_per_inference_pj"]

    @property
    def technology(self):
        """``{"node", "vdd_v"}`` the run is priced at, or None (docs/Technology.md)."""
        return self._data["technology"]

    @property
    def area_mm2(self):
        """The machine's area, or None for an engine without a technology."""
        return self._data["area_mm2"]

    @property
    def dram_bytes(self):
        dram = self.total["dram"]
        return dram["read_bytes"] + dram["write_bytes"]

    @property
    def utilization(self):
        return self.total["utilization"]

    @property
    def verdict(self):
        return self._data["verdict"]

    @property
    def verified(self):
        """True when every output matched the reference; False on a mismatch; None when the
        run was timing only (nothing was checked)."""
        v = self.verdict
        return bool(v["passed"]) if v["checked"] else None

    def to_dict(self):
        return json.loads(json.dumps(self._data))

    def to_json(self, indent=None):
        return json.dumps(self._data, indent=indent)

    def to_pandas(self):
        """The per-layer rows as a pandas DataFrame (nested counters as dotted columns)."""
        return _frame(self.layers)

    def __repr__(self):
        state = {True: "VERIFIED", False: "MISMATCH", None: "timing only"}[self.verified]
        return (f"<nnaccel.Report {self._data['model']} on {self.engine} '{self.config}': "
                f"{self.cycles:,} cycles, {state}>")


class Comparison:
    """One model on several engines under one budget: ``reports`` maps each engine that ran
    to its Report; ``errors`` each engine that could not take the budget or model to why."""

    def __init__(self, data):
        self._data = data
        self.reports = {}
        self.errors = {}
        for run in data["engines"]:
            if run.get("report") is not None:
                self.reports[run["engine"]] = Report(run["report"])
            else:
                self.errors[run["engine"]] = run.get("error", "")

    @classmethod
    def from_json(cls, text):
        return cls(json.loads(text))

    @property
    def budget(self):
        return self._data["budget"]

    def to_dict(self):
        return json.loads(json.dumps(self._data))

    def to_json(self, indent=None):
        return json.dumps(self._data, indent=indent)

    def to_pandas(self):
        """Every engine's per-layer rows in one DataFrame, with an ``engine`` column."""
        rows = []
        for engine, report in self.reports.items():
            rows += [dict(r, engine=engine) for r in report.layers]
        return _frame(rows)

    def __repr__(self):
        parts = [f"{e} {r.cycles:,}" for e, r in self.reports.items()]
        parts += [f"{e}: {why}" for e, why in self.errors.items()]
        return f"<nnaccel.Comparison cycles: {'; '.join(parts)}>"


class Sweep:
    """The points of a sweep in grid order; each a dict with ``params`` (key -> value),
    ``status``, ``cycles``, ``energy_pj``, ``time_us``, ``dram_bytes``, ``utilization``,
    ``multipliers``, ``sram_bytes``, ``area_mm2``, ``verified``, ``pareto`` and ``best``."""

    def __init__(self, points, keys):
        self.points = points
        self.keys = keys

    def pareto(self):
        """The points on the Pareto front, in grid order."""
        return [p for p in self.points if p["pareto"]]

    def best(self):
        """The best point for the sweep's objective, or None when no point ran."""
        return next((p for p in self.points if p["best"]), None)

    def to_pandas(self):
        return _frame(self.points)

    def __len__(self):
        return len(self.points)

    def __repr__(self):
        return f"<nnaccel.Sweep {len(self.points)} points over {', '.join(self.keys)}>"
