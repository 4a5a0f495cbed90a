// Profile files: schema validation (each error names the file and the field) and the shipped
// default profiles.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "clustersim/error.h"
#include "clustersim/profile.h"

namespace clustersim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json valid_profile() {
  return json::parse(R"({
    "schema": "clustersim-profile/1",
    "model": "toy",
    "aliases": ["Toy-Net"],
    "gpu_type": "v100",
    "provenance": {"kind": "measured", "source": "unit test"},
    "batch_size": 32,
    "reference": {"cpus_per_gpu": 2, "mem_gb_per_gpu": 10},
    "cpus_per_gpu": [1, 2, 4],
    "mem_gb_per_gpu": [10, 20],
    "throughput": [[50, 60], [100, 110], [150, 200]],
    "pipeline": {"gpu_samples_per_s": 200, "dataset_gb": 20, "bytes_per_sample": 100000,
                 "cache_read_mbps": 0, "storage_mbps": 5}
  })");
}

class ProfileFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("profile_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }

  // Writes `mutate(valid_profile())` and expects load_profile to fail naming `field`.
  void expect_field_error(const std::function<void(json&)>& mutate, const std::string& field,
                          const std::string& message_part = "") {
    json j = valid_profile();
    mutate(j);
    const std::string path = write("bad.json", j.dump(2));
    try {
      load_profile(path);
      FAIL() << "no error for field " << field;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.field(), field) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
      if (!message_part.empty()) {
        EXPECT_NE(e.message().find(message_part), std::string::npos) << e.what();
      }
    }
  }

  fs::path dir_;
};

TEST_F(ProfileFileTest, ValidProfileLoads) {
  const Profile p = load_profile(write("toy.json", valid_profile().dump()));
  EXPECT_EQ(p.model, "toy");
  EXPECT_EQ(p.gpu_type, "v100");
  EXPECT_EQ(p.provenance_kind, "measured");
  ASSERT_EQ(p.throughput.size(), 3u);
  EXPECT_DOUBLE_EQ(p.throughput[2][1], 200.0);
  EXPECT_DOUBLE_EQ(p.ref_cpus_per_gpu, 2.0);
  ASSERT_TRUE(p.pipeline.has_value());
  EXPECT_DOUBLE_EQ(p.pipeline->storage_mbps, 5.0);
  EXPECT_EQ(p.pipeline->cache_policy, ProfileCachePolicy::kSubset);  // the default
  json lru = valid_profile();
  lru["pipeline"]["cache_policy"] = "lru";
  EXPECT_EQ(load_profile(write("lru.json", lru.dump())).pipeline->cache_policy,
            ProfileCachePolicy::kLru);
}

TEST_F(ProfileFileTest, MissingFileNamesTheFile) {
  const std::string path = (dir_ / "absent.json").string();
  try {
    load_profile(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(e.message().find("cannot open"), std::string::npos);
  }
}

TEST_F(ProfileFileTest, BadJsonNamesFileAndLine) {
  const std::string path =
      write("broken.json", "{\n  \"schema\": \"clustersim-profile/1\",\n  oops\n}");
  try {
    load_profile(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 3u) << e.what();
    EXPECT_NE(e.message().find("invalid JSON"), std::string::npos);
  }
}

TEST_F(ProfileFileTest, NotAnObject) {
  expect_field_error([](json& j) { j = json::array({1, 2}); }, "", "JSON object");
}

TEST_F(ProfileFileTest, MissingFields) {
  for (const char* key : {"schema", "model", "gpu_type", "provenance", "reference", "cpus_per_gpu",
                          "mem_gb_per_gpu", "throughput"}) {
    SCOPED_TRACE(key);
    expect_field_error([&](json& j) { j.erase(key); }, key, "missing required field");
  }
  expect_field_error([](json& j) { j["provenance"].erase("kind"); }, "provenance.kind", "missing");
  expect_field_error([](json& j) { j["reference"].erase("mem_gb_per_gpu"); },
                     "reference.mem_gb_per_gpu", "missing");
  expect_field_error([](json& j) { j["pipeline"].erase("dataset_gb"); }, "pipeline.dataset_gb",
                     "missing");
}

TEST_F(ProfileFileTest, WrongTypes) {
  expect_field_error([](json& j) { j["model"] = 5; }, "model", "must be a string");
  expect_field_error([](json& j) { j["batch_size"] = "big"; }, "batch_size", "must be a number");
  expect_field_error([](json& j) { j["cpus_per_gpu"] = 4; }, "cpus_per_gpu", "array");
  expect_field_error([](json& j) { j["throughput"][1][0] = "fast"; }, "throughput[1][0]",
                     "must be a number");
  expect_field_error([](json& j) { j["throughput"][2] = 7; }, "throughput[2]", "array");
  expect_field_error([](json& j) { j["reference"] = 3; }, "reference", "object");
  expect_field_error([](json& j) { j["aliases"][0] = true; }, "aliases[0]", "string");
}

TEST_F(ProfileFileTest, SchemaAndKnownFields) {
  expect_field_error([](json& j) { j["schema"] = "clustersim-profile/99"; }, "schema",
                     "unsupported");
  expect_field_error([](json& j) { j["throughtput"] = 1; }, "throughtput", "unknown field");
  expect_field_error([](json& j) { j["provenance"]["kind"] = "guessed"; }, "provenance.kind");
  expect_field_error([](json& j) { j["throughput_unit"] = "fps"; }, "throughput_unit");
  expect_field_error([](json& j) { j["pipeline"]["cache_policy"] = "fifo"; },
                     "pipeline.cache_policy", "\"subset\" or \"lru\"");
}

TEST_F(ProfileFileTest, NegativeAndNonMonotonicValues) {
  expect_field_error([](json& j) { j["throughput"][0][0] = -1; }, "throughput[0][0]", "> 0");
  expect_field_error([](json& j) { j["throughput"][0][0] = 0; }, "throughput[0][0]", "> 0");
  expect_field_error([](json& j) { j["throughput"][2][1] = 140; }, "throughput[2][1]",
                     "non-monotonic along mem_gb_per_gpu");
  expect_field_error([](json& j) { j["throughput"][1][0] = 40; }, "throughput[1][0]",
                     "non-monotonic along cpus_per_gpu");
  expect_field_error(
      [](json& j) {
        j["cpus_per_gpu"] = {1, 4, 2};
      },
      "cpus_per_gpu[2]", "strictly increasing");
  expect_field_error([](json& j) { j["mem_gb_per_gpu"] = {-10, 20}; }, "mem_gb_per_gpu[0]", "> 0");
  expect_field_error([](json& j) { j["pipeline"]["bytes_per_sample"] = -3; },
                     "pipeline.bytes_per_sample", "> 0");
  expect_field_error([](json& j) { j["reference"]["cpus_per_gpu"] = 8; }, "reference.cpus_per_gpu",
                     "outside");
}

TEST_F(ProfileFileTest, MatrixShapeMismatch) {
  expect_field_error([](json& j) { j["throughput"].erase(2); }, "throughput",
                     "2 rows but cpus_per_gpu has 3");
  expect_field_error(
      [](json& j) {
        j["throughput"][1] = {100, 110, 120};
      },
      "throughput[1]", "3 columns but mem_gb_per_gpu has 2");
  expect_field_error([](json& j) { j["mem_gb_per_gpu"] = json::array(); }, "mem_gb_per_gpu",
                     "at least one");
}

TEST_F(ProfileFileTest, DirectoryLoadingAndDuplicates) {
  EXPECT_THROW(load_profile_dir((dir_ / "nope").string()), InputError);
  fs::create_directories(dir_ / "empty");
  EXPECT_THROW(load_profile_dir((dir_ / "empty").string()), InputError);

  json a = valid_profile();
  write("lib/v100/toy.json", a.dump());
  a["gpu_type"] = "a100";
  write("lib/a100/toy.json", a.dump());
  const ProfileLibrary lib = load_profile_dir((dir_ / "lib").string());
  EXPECT_EQ(lib.size(), 2u);
  const std::string a100 = "a100";
  ASSERT_NE(lib.find("TOY", &a100), nullptr);
  EXPECT_EQ(lib.find("TOY", &a100)->gpu_type, "a100");
  ASSERT_NE(lib.find("toy-net"), nullptr);  // alias, no GPU type: v100's (kFallbackProfileGpuType)
  EXPECT_EQ(lib.find("toy-net")->gpu_type, "v100");
  EXPECT_EQ(lib.find("unknown"), nullptr);
  {
    // Without a v100 profile of the model: the first type by name that has one.
    a["gpu_type"] = "t4";
    write("other/t4/toy.json", a.dump());
    a["gpu_type"] = "a100";
    write("other/a100/toy.json", a.dump());
    const ProfileLibrary other = load_profile_dir((dir_ / "other").string());
    ASSERT_NE(other.find("toy-net"), nullptr);
    EXPECT_EQ(other.find("toy-net")->gpu_type, "a100");
  }

  write("lib/v100/toy_again.json", valid_profile().dump());
  try {
    load_profile_dir((dir_ / "lib").string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model");
    EXPECT_NE(e.message().find("duplicate"), std::string::npos);
  }
}

// Every shipped profile loads, validates, and sits at rate 1.0 at its reference allocation.
TEST(ShippedProfiles, AllLoadAndAreConsistent) {
  const std::string root = std::string(CLUSTERSIM_SOURCE_DIR) + "/profiles";
  const ProfileLibrary lib = load_profile_dir(root);
  ASSERT_TRUE(lib.by_gpu_type.contains("v100"));
  for (const char* model :
       {"resnet18", "resnet50", "mobilenet_v2", "shufflenet", "alexnet", "vgg16", "transformer",
        "gnmt", "lstm", "bert_base", "deepspeech", "m5", "recommendation"}) {
    SCOPED_TRACE(model);
    const Profile* p = lib.find(model);
    ASSERT_NE(p, nullptr);
    EXPECT_FALSE(p->provenance_source.empty());
    Allocation ref;
    ref.gpus = 1;
    ref.nodes = 1;
    ref.cpus = p->ref_cpus_per_gpu;
    ref.mem_gb = p->ref_mem_gb_per_gpu;
    EXPECT_NEAR(profile_rate(*p, ref), 1.0, 1e-12);
  }
  // Trace spellings resolve through aliases.
  EXPECT_NE(lib.find("ResNet-50"), nullptr);
  EXPECT_NE(lib.find("LM"), nullptr);
  EXPECT_NE(lib.find("Recommendation"), nullptr);
  // Published sensitivities survive the derivation (Synergy: ResNet-18 2.4x at 9 cores/GPU).
  Allocation rich;
  rich.gpus = 2;
  rich.nodes = 1;
  rich.cpus = 18;
  rich.mem_gb = 125;
  EXPECT_NEAR(profile_rate(*lib.find("resnet18"), rich), 2.4, 1e-5);
  EXPECT_NEAR(profile_rate(*lib.find("resnet50"), rich), 1.15, 1e-5);
  EXPECT_NEAR(profile_rate(*lib.find("transformer"), rich), 1.0, 1e-5);
  // With storage modelled at Synergy's 62.5 MB/s per GPU, ImageNet misses cap ResNet-18:
  // h = 62.5 / 147.9, fetch = 62.5 / ((1 - h) * 0.11544) samples/s vs 800 at the reference.
  // One GPU, 9 cores, 62.5 GB (two GPUs would cache twice as much of the dataset).
  rich.gpus = 1;
  rich.cpus = 9;
  rich.mem_gb = 62.5;
  rich.storage_mbps = 62.5;
  const double h = 62.5 / 147.9;
  EXPECT_NEAR(profile_rate(*lib.find("resnet18"), rich), 62.5 / ((1 - h) * 0.11544) / 800.0, 1e-9);
}

// The measured profiles (H100, H200) load, say on which device they were measured, sit at rate
// 1.0 at their reference, and keep growing with cores where the stage benchmarks said so.
void expect_measured_profiles(const std::string& type, const std::string& device,
                              std::size_t models) {
  SCOPED_TRACE(type);
  const std::string root = std::string(CLUSTERSIM_SOURCE_DIR) + "/profiles";
  const ProfileLibrary lib = load_profile_dir(root + "/" + type);
  ASSERT_TRUE(lib.by_gpu_type.contains(type));
  EXPECT_EQ(lib.by_gpu_type.at(type).size(), models);
  for (const auto& [name, p] : lib.by_gpu_type.at(type)) {
    SCOPED_TRACE(name);
    EXPECT_EQ(p.provenance_kind, "measured");
    EXPECT_NE(p.provenance_source.find(device), std::string::npos);
    Allocation ref;
    ref.gpus = 1;
    ref.nodes = 1;
    ref.cpus = p.ref_cpus_per_gpu;
    ref.mem_gb = p.ref_mem_gb_per_gpu;
    EXPECT_NEAR(profile_rate(p, ref), 1.0, 1e-12);
  }
  const Profile* resnet50 = lib.find("resnet50", &type);
  ASSERT_NE(resnet50, nullptr);
  EXPECT_EQ(resnet50->gpu_type, type);
  Allocation rich;
  rich.gpus = 1;
  rich.nodes = 1;
  rich.cpus = 16;
  rich.mem_gb = resnet50->ref_mem_gb_per_gpu;
  EXPECT_GT(profile_rate(*resnet50, rich), 4.0);  // 16 cores vs the 3 of the reference
}

TEST(ShippedProfiles, MeasuredH100ProfilesLoad) { expect_measured_profiles("h100", "H100", 11); }

// Four models measured in a 15-minute lease (profiles/README.md, "H200, measured").
TEST(ShippedProfiles, MeasuredH200ProfilesLoad) { expect_measured_profiles("h200", "H200", 4); }

// A job on a GPU type without profiles uses the v100 ones, also where the folder holds other
// types (results from before those shipped stay the same); a type with its own uses its own.
TEST(ShippedProfiles, FallbackTypeIsV100) {
  const ProfileLibrary lib = load_profile_dir(std::string(CLUSTERSIM_SOURCE_DIR) + "/profiles");
  ASSERT_TRUE(lib.by_gpu_type.contains("h100"));
  const std::string generic = "generic", h100 = "h100";
  EXPECT_EQ(lib.find("resnet50")->gpu_type, "v100");
  EXPECT_EQ(lib.find("resnet50", &generic)->gpu_type, "v100");
  EXPECT_EQ(lib.find("ResNet-50", &generic)->gpu_type, "v100");
  EXPECT_EQ(lib.find("resnet50", &h100)->gpu_type, "h100");
  // m5 has no H100 profile yet: an H100 job of m5 falls back to the V100 one.
  EXPECT_EQ(lib.find("m5", &h100)->gpu_type, "v100");
}

}  // namespace
}  // namespace clustersim
