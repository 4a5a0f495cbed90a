// The serving catalog: the shipped numbers, schema errors at the right line and field, and the
// checks a workload goes through (unknown model, model larger than any GPU).
#include "clustersim/serving_catalog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "clustersim/error.h"
#include "clustersim/profile.h"
#include "clustersim/task_placement.h"
#include "clustersim/workload.h"

namespace clustersim {
namespace {

std::string shipped_path() {
  return std::string(CLUSTERSIM_SOURCE_DIR) + "/profiles/serving/models.json";
}

std::string shipped_text() {
  std::ifstream in(shipped_path());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ServingCatalog, ShipsTheStudysNumbers) {
  const ServingCatalog& catalog = default_serving_catalog();
  EXPECT_EQ(catalog.file, "profiles/serving/models.json");
  const int opt = catalog.find_model("OPT");
  ASSERT_GE(opt, 0);
  const ServingModel& m = catalog.models[static_cast<std::size_t>(opt)];
  EXPECT_EQ(m.name, "opt");
  EXPECT_EQ(m.footprint_gb, 5.72);
  EXPECT_EQ(*m.compute_ms, 561.0);
  EXPECT_EQ(m.model_class, "language");
  EXPECT_EQ(m.kind, "published");
  EXPECT_EQ(catalog.find_model("De-Tr"), catalog.find_model("detr"));  // normalized names
  EXPECT_EQ(catalog.find_model("nonexistent"), -1);
  const ServingModel& join =
      catalog.models[static_cast<std::size_t>(catalog.find_model("aggregate"))];
  EXPECT_EQ(join.footprint_gb, 0.0);

  ASSERT_EQ(catalog.pipelines.size(), 4u);
  const ServingPipeline& translation = catalog.pipelines[0];
  EXPECT_EQ(translation.name, "translation");
  ASSERT_EQ(translation.tasks.size(), 5u);
  EXPECT_EQ(translation.tasks[4].parents, std::vector<std::size_t>({1, 2, 3}));
  EXPECT_EQ(translation.tasks[3].compute_ms, 803.0);
  EXPECT_EQ(catalog.pipelines[1].tasks.size(), 2u);  // question_answer: a chain

  EXPECT_EQ(catalog.gpu_defaults("generic").mem_gb, 24.0);
  EXPECT_EQ(catalog.gpu_defaults("generic").h2d_gbps, 10.17);
  EXPECT_EQ(catalog.gpu_defaults("V100").h2d_gbps, 12.6);
  EXPECT_EQ(catalog.gpu_defaults("h100").mem_gb, 80.0);
  EXPECT_EQ(catalog.gpu_defaults("mi300").gpu_type, "generic");  // unknown: the default
  EXPECT_EQ(catalog.network.net_gbps, 100.0);
  EXPECT_EQ(catalog.network.net_latency_us, 2.0);
  // opt loads in 5.72 / 10.17 s on the default GPU.
  EXPECT_DOUBLE_EQ(load_time_s(m.footprint_gb, catalog.gpu_defaults("generic").h2d_gbps),
                   5.72 / 10.17);
}

TEST(ServingCatalog, CompiledInCopyMatchesTheFile) {
  const ServingCatalog file = load_serving_catalog(shipped_path());
  const ServingCatalog& built_in = default_serving_catalog();
  ASSERT_EQ(file.models.size(), built_in.models.size());
  for (std::size_t i = 0; i < file.models.size(); ++i) {
    EXPECT_EQ(file.models[i].name, built_in.models[i].name);
    EXPECT_EQ(file.models[i].footprint_gb, built_in.models[i].footprint_gb);
    EXPECT_EQ(file.models[i].line, built_in.models[i].line);
  }
}

// Replaces the first `from` in the shipped catalog with `to` and expects an InputError.
// `line_offset`: lines from the start of the edit to where the field's value starts.
void expect_catalog_error(const std::string& from, const std::string& to, const std::string& field,
                          const std::string& words = "", std::size_t line_offset = 0) {
  std::string text = shipped_text();
  const std::size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  // The line the field's value starts on, where the edit was made.
  const std::size_t line = 1 + line_offset +
                           static_cast<std::size_t>(std::count(
                               text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  try {
    parse_serving_catalog(text, "c.json");
    ADD_FAILURE() << "expected an InputError for " << field;
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), "c.json");
    EXPECT_EQ(error.field(), field) << error.what();
    if (field.find('.') != std::string::npos) {
      EXPECT_EQ(error.line(), line) << error.what();
    }
    if (!words.empty()) {
      EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
    }
  }
}

TEST(ServingCatalog, BadEntriesNameTheirFieldAndLine) {
  expect_catalog_error("\"footprint_gb\": 0.8", "\"footprint_gb\": -0.8", "models[1].footprint_gb",
                       ">= 0");
  expect_catalog_error("\"compute_ms\": 441", "\"compute_ms\": 0", "models[1].compute_ms", "> 0");
  expect_catalog_error("\"class\": \"image\"", "\"class\": \"video\"", "models[4].class");
  expect_catalog_error("\"name\": \"marian\"", "\"name\": \"O-P-T\"", "models[1].name",
                       "already the name of models[0].name");
  expect_catalog_error("\"footprint_gb\": 0.8", "\"footprint_gb\": 0.8, \"weight_gb\": 1",
                       "models[1].weight_gb", "unknown field");
  expect_catalog_error("\"model\": \"marian\"", "\"model\": \"bart\"",
                       "pipelines[0].tasks[1].model", "unknown model 'bart'");
  expect_catalog_error("\"parents\": [\n            \"opt\"\n          ]",
                       "\"parents\": [\n            \"join\"\n          ]",
                       "pipelines[0].tasks[1].parents[0]", "not a task listed before", 1);
  expect_catalog_error("\"mem_gb\": 24", "\"mem_gb\": 0", "gpu_types[0].mem_gb");
  expect_catalog_error("\"name\": \"generic\"", "\"name\": \"a10\"", "gpu_types",
                       "needs an entry named \"generic\"");
  expect_catalog_error("\"net_gbps\": 100", "\"net_gbps\": \"fast\"", "network.net_gbps");
  expect_catalog_error("\"schema\": \"clustersim-serving/1\"",
                       "\"schema\": \"clustersim-serving/2\"", "schema", "unsupported schema");
  expect_catalog_error("\"kind\": \"published\"", "\"kind\": \"guessed\"", "models[0].kind");
}

TEST(ServingCatalog, BadJsonNamesTheLine) {
  try {
    parse_serving_catalog("{\n  \"schema\": \"clustersim-serving/1\",\n  \"models\": [\n}",
                          "c.json");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.line(), 4u) << error.what();
  }
  EXPECT_THROW(load_serving_catalog("/nonexistent/catalog.json"), InputError);
}

Workload tasks_of(std::initializer_list<const char*> models) {
  Workload w;
  std::size_t line = 2;
  for (const char* model : models) {
    JobSpec& job = w.jobs.emplace_back();
    job.id = "q/";
    job.id += std::to_string(line);
    job.model = model;
    job.duration = 1.0;
    job.source_line = line++;
  }
  return w;
}

TEST(ServingCatalog, ResolvesTaskModelsOrNamesTheTraceLine) {
  const ServingCatalog& catalog = default_serving_catalog();
  const Workload w = tasks_of({"opt", "NLI", "aggregate"});
  const std::vector<int> models = resolve_task_models(w, catalog, "t.csv");
  EXPECT_EQ(models, std::vector<int>({catalog.find_model("opt"), catalog.find_model("nli"),
                                      catalog.find_model("aggregate")}));
  try {
    resolve_task_models(tasks_of({"opt", "gpt5"}), catalog, "t.csv");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), "t.csv");
    EXPECT_EQ(error.line(), 3u);
    EXPECT_EQ(error.field(), "model");
  }
}

TEST(ServingCatalog, AModelLargerThanEveryGpuIsAnInputError) {
  const ServingCatalog& catalog = default_serving_catalog();
  const Workload w = tasks_of({"nli", "opt"});
  const std::vector<int> models = resolve_task_models(w, catalog, "t.csv");
  // opt needs 5.72 GB: fits a 24 GB GPU, not 4 and 5.5 GB ones.
  EXPECT_NO_THROW(check_models_fit(w, models, catalog, {{"t4", 4.0}, {"big", 24.0}}, "t.csv"));
  try {
    check_models_fit(w, models, catalog, {{"small", 4.0}, {"medium", 5.5}}, "t.csv");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), "t.csv");
    EXPECT_EQ(error.line(), 3u);
    EXPECT_EQ(error.field(), "model");
    const std::string what = error.what();
    EXPECT_NE(what.find("model 'opt' (task q/3) needs 5.72 GB of GPU memory "
                        "(profiles/serving/models.json:" +
                        std::to_string(catalog.models[static_cast<std::size_t>(models[1])].line) +
                        ") but the largest GPU (type 'medium') holds 5.5 GB"),
              std::string::npos)
        << what;
  }
}

TEST(ServingCatalog, AProfileFolderSkipsIt) {
  // The catalog lives under profiles/: loading the whole folder as profiles must skip it (and a
  // folder holding nothing but a catalog has no profile).
  const ProfileLibrary shipped = load_profile_dir(std::string(CLUSTERSIM_SOURCE_DIR) + "/profiles");
  EXPECT_GT(shipped.size(), 0u);
  EXPECT_EQ(shipped.find("opt"), nullptr);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("csim_catalog_only_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "models.json") << shipped_text();
  EXPECT_THROW(load_profile_dir(dir.string()), InputError);
  // A file that is neither (another schema) is still read as a profile, and fails as one.
  std::ofstream(dir / "models.json") << "{\"schema\": \"clustersim-serving/9\"}";
  try {
    load_profile_dir(dir.string());
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("unsupported schema"), std::string::npos)
        << error.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace clustersim
