// A program outside nnaccel's tree (tests/install): lists the registered engines, loads a zoo
// model and simulates it on the first engine, verified against the reference.
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/engines/Engine.h"

#include <cstdio>

int main() {
  std::printf("engines:");
  for (const std::string& name : nnaccel::engines::engineNames())
    std::printf(" %s", name.c_str());
  std::printf("\n");
  const nnaccel::ir::Graph g = nnaccel::driver::loadModel("lenet5");
  const std::string engine = nnaccel::engines::engineNames().front();
  const nnaccel::report::RunReport r =
      nnaccel::engines::simulate(g, nnaccel::engines::loadPreset(engine), {});
  std::printf("lenet5 on %s: %lld cycles, %s\n", engine.c_str(),
              static_cast<long long>(r.total.cycles),
              r.verdict.checked && r.verdict.passed ? "VERIFIED" : "NOT VERIFIED");
  return r.verdict.passed ? 0 : 1;
}
