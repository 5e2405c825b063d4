// The shared session helpers: the report's "int8 scales" line names where the verified int8
// model's scales came from (calibration method, input sets, equalization, or a QDQ model's own).
#include "nnaccel/arch/common/Session.h"

#include "../../../support/LayerSpecGraphs.h"
#include "../../../support/QdqGraph.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::common {
namespace {

TEST(Session, QuantizationSummaryNamesTheCalibration) {
  const ir::Graph g = nnaccel::testing::buildLayerGraph(nnaccel::testing::conv(3, 4, 6, 6, 3, 1));
  RunOptions o;
  EXPECT_EQ(quantizationSummary(quantizeForRun(g, o, "toy"), o),
            (std::pair<std::string, std::string>{
                "int8 scales", "calibrated by minmax on 4 seeded random input sets"}));
  o.calibration = {quant::CalibrationMethod::Percentile, 99.9, true};
  o.calibrationSets = quant::makeCalibrationInputs(g, 2, 5);
  EXPECT_EQ(quantizationSummary(quantizeForRun(g, o, "toy"), o).second,
            "calibrated by percentile 99.9 on 2 given input sets; channels equalized in 0 groups");
}

TEST(Session, QuantizationSummaryNamesAQdqModelsOwnScales) {
  RunOptions o;
  const ir::Graph g = nnaccel::testing::qdqGraph();
  EXPECT_TRUE(quantizationSummary(quantizeForRun(g, o, "toy"), o)
                  .second.starts_with("the model's own QuantizeLinear/DequantizeLinear scales"));
}

TEST(Session, AnEngineOfSymmetricActivationsRefusesAZeroPoint) {
  RunOptions o;
  const ir::Graph g = nnaccel::testing::qdqGraph(true);
  try {
    quantizeForRun(g, o, "toy");
    FAIL() << "an asymmetric model was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(e.reason(), "the model quantizes 'x' with zero point -8 (an asymmetric "
                          "activation); the toy engine's int8 datapath holds symmetric "
                          "activations only (`nnaccel run --dtype int8` runs the model on the "
                          "int8 reference)");
  }
  EXPECT_NO_THROW(quantizeForRun(g, o, "toy", ZeroPointSupport::Asymmetric));
}

} // namespace
} // namespace nnaccel::arch::common
