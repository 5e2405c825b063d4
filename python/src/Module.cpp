// The extension module nnaccel._core (python/README.md): the calls of Calls.h, the Model handle,
// and nnaccel::Error raised as the Python exception nnaccel.Error with the CLI's one-line
// message and the error's kind ("model", "unsupported", "config", "usage", "io").
#include "Calls.h"
#include "nnaccel/support/Error.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace nnaccel::python;

namespace {

const char* kindName(nnaccel::ErrorKind k) {
  switch (k) {
  case nnaccel::ErrorKind::Model:
    return "model";
  case nnaccel::ErrorKind::Unsupported:
    return "unsupported";
  case nnaccel::ErrorKind::Config:
    return "config";
  case nnaccel::ErrorKind::Usage:
    return "usage";
  case nnaccel::ErrorKind::Io:
    return "io";
  }
  return "unknown";
}

Int8Options int8Options(py::object calibration, std::string method, double percentile,
                        bool equalize, bool asymmetric, bool biasCorrection) {
  return Int8Options{std::move(calibration), std::move(method), percentile, equalize, asymmetric,
                     biasCorrection};
}

void defineModel(py::module_& m) {
  py::class_<Model>(m, "Model", "a loaded model (nnaccel.load)")
      .def_property_readonly("source", [](const Model& x) { return x.source; })
      .def_property_readonly("name", [](const Model& x) { return x.graph->name; })
      .def("info_json", &infoJson, "`nnaccel info --json` of the model");
  m.def("load", &load, py::arg("model"), py::arg("dims"), py::arg("batch"), py::arg("inputs"));
  m.def("info_json", &infoJson, py::arg("model"));
}

void defineRuns(py::module_& m) {
  m.def(
      "run",
      [](const Model& model, py::object inputs, const std::string& dtype, uint64_t seed,
         py::object calibration, std::string method, double percentile, bool equalize,
         bool asymmetric, bool biasCorrection) {
        return run(model, inputs, dtype, seed,
                   int8Options(std::move(calibration), std::move(method), percentile, equalize,
                               asymmetric, biasCorrection));
      },
      py::arg("model"), py::arg("inputs"), py::arg("dtype"), py::arg("seed"),
      py::arg("calibration"), py::arg("method"), py::arg("percentile"), py::arg("equalize"),
      py::arg("asymmetric"), py::arg("bias_correction"));
  m.def(
      "simulate",
      [](const Model& model, py::object inputs, const std::string& arch, const std::string& preset,
         const std::string& config, const std::vector<std::string>& overrides,
         const std::string& dtype, bool timingOnly, bool baseline,
         const std::vector<std::string>& host, const std::map<std::string, int64_t>& engineOptions,
         int threads, py::object calibration, std::string method, double percentile, bool equalize,
         bool asymmetric, bool biasCorrection, py::object progress) {
        const SimulateOptions o{arch,       preset,   config, overrides,     dtype,
                                timingOnly, baseline, host,   engineOptions, threads};
        return simulate(model, inputs, o,
                        int8Options(std::move(calibration), std::move(method), percentile, equalize,
                                    asymmetric, biasCorrection),
                        progress);
      },
      py::arg("model"), py::arg("inputs"), py::arg("arch"), py::arg("preset"), py::arg("config"),
      py::arg("overrides"), py::arg("dtype"), py::arg("timing_only"), py::arg("baseline"),
      py::arg("host"), py::arg("engine_options"), py::arg("threads"), py::arg("calibration"),
      py::arg("method"), py::arg("percentile"), py::arg("equalize"), py::arg("asymmetric"),
      py::arg("bias_correction"), py::arg("progress"));
  m.def("compare", &compare, py::arg("model"), py::arg("budget"), py::arg("engines"),
        py::arg("timing_only"), py::arg("progress"));
  m.def(
      "sweep",
      [](const Model& model, const std::string& arch, const std::string& preset,
         const std::string& config, const std::vector<std::string>& overrides,
         const std::vector<std::string>& params, const std::string& objective,
         const std::vector<std::string>& pareto, int threads, bool timingOnly,
         const std::vector<std::string>& host, py::object progress) {
        SimulateOptions o;
        o.arch = arch;
        o.preset = preset;
        o.config = config;
        o.overrides = overrides;
        o.timingOnly = timingOnly;
        o.host = host;
        return sweep(model, o, params, objective, pareto, threads, progress);
      },
      py::arg("model"), py::arg("arch"), py::arg("preset"), py::arg("config"), py::arg("overrides"),
      py::arg("params"), py::arg("objective"), py::arg("pareto"), py::arg("threads"),
      py::arg("timing_only"), py::arg("host"), py::arg("progress"));
}

} // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "nnaccel's C++ core; use the nnaccel package, not this module";
  static py::exception<nnaccel::Error> error(m, "Error");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const nnaccel::Error& e) {
      const py::object type = error;
      py::object exc = type(py::str(e.what()));
      exc.attr("kind") = kindName(e.kind());
      PyErr_SetObject(error.ptr(), exc.ptr());
    }
  });
  defineModel(m);
  defineRuns(m);
  m.def("engines", &engines);
  m.def("config_yaml", &configYaml, py::arg("arch"), py::arg("preset"), py::arg("config"),
        py::arg("overrides"));
  m.def("zoo_list", &zooList);
  m.def("zoo_export", &zooExport, py::arg("name"), py::arg("path"), py::arg("seed"));
}
