// `nnaccel zoo list [--json|--csv]` and `nnaccel zoo export NAME out.onnx`: the built-in models.
#include "Command.h"
#include "ListOutput.h"
#include "TextTable.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/driver/ModelSummary.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/zoo/Zoo.h"

#include <fmt/core.h>

namespace nnaccel::cli {

namespace {

/// One row per model. The counts come from the layer shapes (ZooModel::counts): no weight is
/// drawn, so listing takes milliseconds even with VGG-16's 138 M parameters.
void listModels(const ListOutput& output) {
  if (!output.table()) {
    nlohmann::ordered_json records = nlohmann::ordered_json::array();
    for (const zoo::ZooModel& m : zoo::zooModels()) {
      const zoo::ModelCounts counts = m.counts();
      records.push_back({{"name", m.name},
                         {"input_shape", m.inputShape},
                         {"params", counts.params},
                         {"macs", counts.macs},
                         {"classifier", m.isClassifier},
                         {"description", m.description}});
    }
    output.print(records);
    return;
  }
  constexpr auto kLeft = TextTable::Align::Left;
  constexpr auto kRight = TextTable::Align::Right;
  TextTable table({{"name", kLeft},
                   {"input", kLeft},
                   {"params", kRight},
                   {"MACs", kRight},
                   {"description", kLeft}});
  for (const zoo::ZooModel& m : zoo::zooModels()) {
    const zoo::ModelCounts counts = m.counts();
    table.addRow({m.name, dimsToString(m.inputShape), groupThousands(counts.params),
                  humanCount(counts.macs), m.description});
  }
  fmt::print("{}", table.render());
}

void exportModel(const std::string& name, const std::string& path, uint64_t seed) {
  const zoo::ZooModel* m = driver::resolveZooModel(name);
  if (m == nullptr) {
    throw Error(ErrorKind::Usage, {},
                fmt::format("no zoo model named '{}' (see 'nnaccel zoo list')", name));
  }
  driver::checkWritable(path); // fail before building a model that cannot be written
  ir::Graph g = m->build(seed);
  ir::inferShapes(g); // the exported file declares every output's type and shape
  frontend::exportOnnxFile(g, path);
  fmt::print("wrote {} (seed {}, {} params) to {}\n", m->name, seed,
             groupThousands(driver::countParameters(g)), path);
}

class ZooCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.require_subcommand(1);
    list_ = app.add_subcommand("list", "list the built-in models: input shape, parameters, MACs");
    listOutput_.configure(*list_, "the models");
    export_ = app.add_subcommand("export", "write a built-in model as an ONNX file");
    export_->add_option("NAME", name_, "zoo model name (see 'nnaccel zoo list')")->required();
    export_->add_option("OUT", path_, "output .onnx path")->required();
    export_->add_option("--seed", seed_, "weight seed")
        ->check(seedValidator())
        ->capture_default_str();
  }

  void run() override {
    if (list_->parsed()) {
      listModels(listOutput_);
    } else {
      exportModel(name_, path_, seed_);
    }
  }

private:
  CLI::App* list_ = nullptr;
  CLI::App* export_ = nullptr;
  ListOutput listOutput_;
  std::string name_;
  std::string path_;
  uint64_t seed_ = zoo::kDefaultSeed;
};

} // namespace

std::unique_ptr<Command> makeZooCommand() {
  return std::make_unique<ZooCommand>();
}

} // namespace nnaccel::cli
