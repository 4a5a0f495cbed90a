// Scenario tests: each tests/scenarios/*.scenario file is a run worked out by hand: a config, the
// files it names (a trace, a failure trace), and the per-job table and metrics it must give. The
// file says why each expected number is what it is; this runner only runs it and compares.
//
// Format (sections start with a line "--- NAME"; lines before the first are the description):
//   --- config            a run config (TOML); its paths name the files below
//   --- file NAME         a file written next to the config (e.g. the trace)
//   --- expect            CSV: job_id, then any --jobs-out columns (start_time, finish_time,
//                         queue_delay, jct, preemptions, gpu_seconds, ...): exact values
//   --- metrics           lines "key = value": --json metrics, exact values
// Adding a case is adding a file: the runner finds every *.scenario in this folder.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/metrics.h"

namespace clustersim {
namespace {

namespace fs = std::filesystem;

const fs::path kFolder = fs::path(CLUSTERSIM_SOURCE_DIR) / "tests" / "scenarios";

struct Scenario {
  std::string config;
  std::map<std::string, std::string> files;
  std::string expect;
  std::string metrics;
};

Scenario read_scenario(const fs::path& path) {
  std::ifstream in(path);
  Scenario scenario;
  std::string line, section, name;
  const auto target = [&]() -> std::string* {
    if (section == "config") return &scenario.config;
    if (section == "file") return &scenario.files[name];
    if (section == "expect") return &scenario.expect;
    if (section == "metrics") return &scenario.metrics;
    return nullptr;  // the description
  };
  while (std::getline(in, line)) {
    if (line.rfind("--- ", 0) == 0) {
      std::istringstream header(line.substr(4));
      header >> section >> name;
      if (!target() && section != "description")
        throw std::runtime_error(path.string() + ": unknown section '" + section + "'");
      continue;
    }
    if (std::string* text = target()) *text += line + "\n";
  }
  return scenario;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  for (std::string field; std::getline(stream, field, ',');) fields.push_back(field);
  return fields;
}

double job_field(const JobRecord& record, const std::string& column) {
  for (const JobField& field : job_record_fields())
    if (field.name == column)
      return field.type == FieldType::kCount ? record.*field.count : record.*field.real;
  throw std::runtime_error("unknown --jobs-out column '" + column + "'");
}

double metric_field(const RunMetrics& metrics, const std::string& key) {
  for (const MetricField& field : run_metric_fields())
    if (field.name == key) return field.as_double(metrics);
  throw std::runtime_error("unknown metric '" + key + "'");
}

std::string trim(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t");
  const auto end = text.find_last_not_of(" \t");
  return begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
}

class ScenarioTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ScenarioTest, GivesTheTableWorkedOutByHand) {
  const fs::path path = kFolder / (GetParam() + ".scenario");
  const Scenario scenario = read_scenario(path);
  ASSERT_FALSE(scenario.config.empty()) << path << ": no config section";
  ASSERT_FALSE(scenario.expect.empty() && scenario.metrics.empty()) << path << ": nothing expected";
  const fs::path dir = fs::temp_directory_path() /
                       ("clustersim_scenario_" + GetParam() + "_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const auto& [name, text] : scenario.files) std::ofstream(dir / name) << text;
  std::ofstream(dir / "config.toml") << scenario.config;
  const RunConfig config = load_run_config((dir / "config.toml").string());
  const ConfigRun run =
      simulate_config(config, std::make_shared<const Workload>(load_workload(config)));
  fs::remove_all(dir);

  std::map<std::string, std::size_t> by_id;
  for (std::size_t i = 0; i < run.workload->jobs.size(); ++i) by_id[run.workload->jobs[i].id] = i;
  std::istringstream expect(scenario.expect);
  std::string line;
  std::vector<std::string> columns;
  std::size_t rows = 0;
  while (std::getline(expect, line)) {
    if (trim(line).empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = split_csv(line);
    if (columns.empty()) {
      columns = fields;
      ASSERT_EQ(columns.front(), "job_id") << path << ": the expect table starts with job_id";
      continue;
    }
    ASSERT_EQ(fields.size(), columns.size()) << path << ": " << line;
    ASSERT_TRUE(by_id.count(fields[0])) << path << ": no job '" << fields[0] << "'";
    const JobRecord& record = run.result.jobs[by_id[fields[0]]];
    for (std::size_t c = 1; c < columns.size(); ++c)
      EXPECT_EQ(job_field(record, columns[c]), std::stod(fields[c]))
          << path << ": job " << fields[0] << ", " << columns[c];
    ++rows;
  }
  std::istringstream metrics(scenario.metrics);
  while (std::getline(metrics, line)) {
    if (trim(line).empty() || line[0] == '#') continue;
    const auto equals = line.find('=');
    ASSERT_NE(equals, std::string::npos) << path << ": " << line;
    const std::string key = trim(line.substr(0, equals));
    EXPECT_EQ(metric_field(run.result.metrics, key), std::stod(line.substr(equals + 1)))
        << path << ": metric " << key;
  }
  EXPECT_TRUE(rows > 0 || !scenario.metrics.empty());
}

std::vector<std::string> scenario_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kFolder))
    if (entry.path().extension() == ".scenario") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(HandWorked, ScenarioTest, ::testing::ValuesIn(scenario_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace clustersim
