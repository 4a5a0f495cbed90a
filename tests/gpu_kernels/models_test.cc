// The model zoo's layer shapes reproduce the published per-sample compute of each network.
#include "ckbench/models.h"

#include <gtest/gtest.h>

#include <set>

namespace ckbench {
namespace {

TEST(ModelZoo, MatchesPublishedForwardMacs) {
  for (const ModelSpec& m : model_zoo()) {
    if (m.published_gmacs <= 0.0) continue;
    SCOPED_TRACE(m.name);
    EXPECT_NEAR(m.macs_per_sample() / 1e9, m.published_gmacs, 0.05 * m.published_gmacs);
  }
}

TEST(ModelZoo, PublishedParameterCounts) {
  // torchvision parameter counts (weights of conv/linear layers; no biases or BN).
  const std::pair<const char*, double> expected[] = {{"resnet18", 11.7e6},    {"resnet50", 25.6e6},
                                                     {"alexnet", 61.1e6},     {"vgg16", 138.4e6},
                                                     {"mobilenet_v2", 3.5e6}, {"bert_base", 110e6}};
  for (const auto& [name, params] : expected) {
    SCOPED_TRACE(name);
    EXPECT_NEAR(static_cast<double>(find_model(name).parameters()), params, 0.05 * params);
  }
}

TEST(ModelZoo, CoversTheShippedProfiles) {
  std::set<std::string> names;
  for (const ModelSpec& m : model_zoo()) {
    names.insert(m.name);
    EXPECT_GT(m.default_batch, 0);
    EXPECT_GT(m.stored_bytes_per_sample, 0);
    EXPECT_GT(m.device_bytes_per_sample, 0);
    EXPECT_GT(m.dataset_gb, 0.0);
    EXPECT_FALSE(m.layers.empty());
  }
  for (const char* n :
       {"resnet18", "resnet50", "mobilenet_v2", "shufflenet", "alexnet", "vgg16", "transformer",
        "gnmt", "lstm", "bert_base", "deepspeech", "m5", "recommendation"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
  EXPECT_THROW(find_model("nope"), std::invalid_argument);
}

TEST(ModelZoo, RecurrentLayersCountEveryStep) {
  Layer l;
  l.kind = LayerKind::kRecurrent;
  l.n = 4096;
  l.k = 1024;
  l.steps = 50;
  l.repeat = 2;
  EXPECT_DOUBLE_EQ(l.macs_per_sample(), 4096.0 * 1024 * 50 * 2);
}

}  // namespace
}  // namespace ckbench
