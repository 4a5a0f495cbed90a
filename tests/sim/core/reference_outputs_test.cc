// Optimisations must not change results: every policy x placement x quota mode (and a few
// mechanisms) on thousand-job runs gives per-job outputs bit-identical to the engine before the
// performance work. Three kinds of reference data, all in tests/sim/core/data/:
//
//  - reference_digests.txt: an FNV digest of each run's full per-job output (every field the
//    digest below covers, as the bytes of the doubles, plus four run metrics). Every run; the
//    exact check of the per-job output.
//  - golden/metrics.csv: a row per run with every RunMetrics field (run_metric_fields(), the
//    --json keys), reals as their shortest round-trip text (std::to_chars), so text equality is
//    bit equality. Every run; exact.
//  - golden/jobs/<run>.csv: a row per job (in workload order) with every JobRecord field the
//    digest covers, exact in the same way, for a subset of the runs (job_golden_runs()). Left
//    out because they follow from the others or from the workload, and checked for every run:
//    submit_time and num_gpus (the workload's), jct (finish_time - submit_time, bit for bit).
//    Why a subset: the full per-job text of all 130 runs x 2,500 jobs is ~25 MB (~80 bytes a
//    row; the times are 17-digit doubles, so no honest text format gets near the ~6 MB the
//    repository can take), and 102 of the 130 outputs are distinct, so sharing files saves
//    little. The subset (24 runs, 5.0 MB) takes every policy once with VCs (each placement and
//    quota mode in turn, so every one of them is covered) and once on the overloaded one-type
//    workload, and each other kind of run once. A run outside it is still pinned
//    exactly by its digest and its metrics row; its actual per-job CSV is written on failure.
//
// A mismatch prints, per run, how many jobs differ and the first differing (job, field,
// expected, actual), and the metrics that differ; it writes the actual files (metrics.csv and
// the per-job CSV of every run with a golden file or a changed digest) to $CLUSTERSIM_GOLDEN_OUT
// (default: build/reference_outputs_actual), laid out like data/golden, so that
//   diff -u
//   {tests/sim/core/data/golden,build/reference_outputs_actual}/jobs/fifo.consolidate.strict.csv
// shows the change line by line. For a run without a golden file, run the test of the commit
// before the change with CLUSTERSIM_GOLDEN_OUT set to another folder to get the expected file.
//
// To regenerate after an intended change of behaviour (say why in the commit), run the test with
// CLUSTERSIM_WRITE_GOLDENS=1 in the environment: it rewrites reference_digests.txt and golden/
// in the source tree (from the repository root:
//   CLUSTERSIM_WRITE_GOLDENS=1 build/bin/core_test --gtest_filter='ReferenceOutputs.*').
// CLUSTERSIM_WRITE_DIGESTS=PATH still writes only the digests, to PATH.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "clustersim/metrics.h"
#include "clustersim/placement.h"
#include "clustersim/policy.h"
#include "clustersim/simulator.h"
#include "test_util.h"

namespace clustersim {
namespace {

// FNV-1a over the bytes of every field of every job record, and of the run metrics' counts.
class Digest {
 public:
  template <typename T>
  void add(const T& value) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (unsigned char b : bytes) hash_ = (hash_ ^ b) * 1099511628211ull;
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 1469598103934665603ull;
};

std::uint64_t digest(const RunResult& result) {
  Digest d;
  for (const JobRecord& r : result.jobs) {
    d.add(r.index);
    d.add(r.submit_time);
    d.add(r.start_time);
    d.add(r.finish_time);
    d.add(r.jct);
    d.add(r.queue_delay);
    d.add(r.num_gpus);
    d.add(r.preemptions);
    d.add(r.gpu_seconds);
    d.add(r.overhead_gpu_seconds);
    d.add(r.nodes);
    d.add(r.rejected);
  }
  d.add(result.metrics.events);
  d.add(result.metrics.rounds);
  d.add(result.metrics.frag_mean);
  d.add(result.metrics.queue_len_mean);
  return d.value();
}

// ---- Golden CSV tables ----------------------------------------------------------------------

// Shortest text that reads back to the same double: equal text <=> equal bits (NaN aside).
std::string exact_text(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  return std::string(buffer, end);
}

// A CSV table keyed by its first column (a job index or a run name); cells are compared as text.
struct GoldenTable {
  std::vector<std::string> columns;  // columns[0] names the key
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> rows;  // without the key

  void add_row(std::string key, std::vector<std::string> cells) {
    keys.push_back(std::move(key));
    rows.push_back(std::move(cells));
  }
  std::string csv() const {
    std::string text;
    for (std::size_t c = 0; c < columns.size(); ++c) text += (c ? "," : "") + columns[c];
    text += '\n';
    for (std::size_t r = 0; r < rows.size(); ++r) {
      text += keys[r];
      for (const std::string& cell : rows[r]) text += "," + cell;
      text += '\n';
    }
    return text;
  }
};

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

// An empty table (no columns) when the file does not exist.
GoldenTable read_golden_table(const std::filesystem::path& path) {
  GoldenTable table;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return table;
  table.columns = split_csv_line(line);
  while (std::getline(in, line)) {
    std::vector<std::string> cells = split_csv_line(line);
    if (cells.empty()) continue;
    std::string key = cells.front();
    cells.erase(cells.begin());
    table.add_row(std::move(key), std::move(cells));
  }
  return table;
}

void write_text_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// The per-job fields the digest covers, but submit_time, num_gpus and jct, which
// check_derived_job_fields pins instead.
GoldenTable jobs_table(const RunResult& result) {
  GoldenTable table;
  table.columns = {"job",         "start_time",  "finish_time",          "queue_delay",
                   "preemptions", "gpu_seconds", "overhead_gpu_seconds", "nodes",
                   "rejected"};
  for (const JobRecord& r : result.jobs)
    table.add_row(
        std::to_string(r.index),
        {exact_text(r.start_time), exact_text(r.finish_time), exact_text(r.queue_delay),
         std::to_string(r.preemptions), exact_text(r.gpu_seconds),
         exact_text(r.overhead_gpu_seconds), std::to_string(r.nodes), r.rejected ? "1" : "0"});
  return table;
}

std::vector<std::string> metrics_columns() {
  std::vector<std::string> columns{"run"};
  for (const MetricField& field : run_metric_fields()) columns.emplace_back(field.name);
  return columns;
}

std::vector<std::string> metrics_cells(const RunMetrics& m) {
  std::vector<std::string> cells;
  for (const MetricField& field : run_metric_fields())
    cells.push_back(field.type == FieldType::kCount ? std::to_string(m.*field.count)
                                                    : exact_text(m.*field.real));
  return cells;
}

// Every RunMetrics member is 8 bytes (a count or a double), so the field table covers the
// struct exactly when their sizes agree: a metric added without a table entry fails here.
TEST(ReferenceOutputs, MetricsTableCoversEveryRunMetricsField) {
  EXPECT_EQ(run_metric_fields().size() * 8, sizeof(RunMetrics));
}

// The readable report of the differences between a golden table and the actual one: empty when
// they are equal. `row_word` names a row ("job", "run"); at most `listed` cells are listed.
std::string compare_tables(const GoldenTable& expected, const GoldenTable& actual,
                           const std::string& row_word, std::size_t listed = 10) {
  std::ostringstream report;
  if (expected.columns != actual.columns) {
    report << "  columns differ: expected " << GoldenTable{expected.columns, {}, {}}.csv()
           << "           actual   " << GoldenTable{actual.columns, {}, {}}.csv();
    return report.str();
  }
  std::map<std::string, std::size_t> actual_row;
  for (std::size_t r = 0; r < actual.keys.size(); ++r) actual_row[actual.keys[r]] = r;
  std::size_t differing_rows = 0, differing_cells = 0;
  std::set<std::string> differing_columns;
  std::ostringstream lines;
  std::set<std::string> expected_keys(expected.keys.begin(), expected.keys.end());
  for (std::size_t r = 0; r < expected.keys.size(); ++r) {
    const auto found = actual_row.find(expected.keys[r]);
    if (found == actual_row.end()) {
      ++differing_rows;
      if (differing_cells++ < listed)
        lines << "    " << row_word << ' ' << expected.keys[r] << ": missing\n";
      continue;
    }
    const auto& want = expected.rows[r];
    const auto& got = actual.rows[found->second];
    bool row_differs = false;
    for (std::size_t c = 0; c < std::max(want.size(), got.size()); ++c) {
      const std::string w = c < want.size() ? want[c] : "(none)";
      const std::string g = c < got.size() ? got[c] : "(none)";
      if (w == g) continue;
      row_differs = true;
      const std::string column = c + 1 < expected.columns.size() ? expected.columns[c + 1] : "?";
      differing_columns.insert(column);
      if (differing_cells++ < listed)
        lines << "    " << row_word << ' ' << expected.keys[r] << ' ' << column << ": expected "
              << w << ", actual " << g << '\n';
    }
    differing_rows += row_differs;
  }
  for (const std::string& key : actual.keys)
    if (!expected_keys.count(key)) {
      ++differing_rows;
      if (differing_cells++ < listed)
        lines << "    " << row_word << ' ' << key << ": not expected\n";
    }
  if (differing_rows == 0) return "";
  report << "  " << differing_rows << " of " << expected.keys.size() << ' ' << row_word
         << "s differ (" << differing_cells << " cells; columns:";
  for (const std::string& column : differing_columns) report << ' ' << column;
  report << ")\n" << lines.str();
  if (differing_cells > listed) report << "    ... " << differing_cells - listed << " more\n";
  return report.str();
}

// `report` (lines indented by two spaces) with `title` put after the indent of its first line.
std::string prefixed(const std::string& title, const std::string& report) {
  return report.empty() ? report : "  " + title + report.substr(2);
}

// The metrics of one run: the differing fields, all of them (a row is short).
std::string compare_metric_rows(const GoldenTable& expected, const GoldenTable& actual) {
  if (expected.columns != actual.columns) return compare_tables(expected, actual, "run");
  const auto& want = expected.rows.front();
  const auto& got = actual.rows.front();
  if (want.size() != got.size()) return "  golden/metrics.csv: the row has another length\n";
  std::ostringstream lines;
  std::size_t differing = 0;
  for (std::size_t c = 0; c < want.size(); ++c)
    if (want[c] != got[c] && differing++ < 20)
      lines << "    " << expected.columns[c + 1] << ": expected " << want[c] << ", actual "
            << got[c] << '\n';
  if (differing == 0) return "";
  return "  golden/metrics.csv: " + std::to_string(differing) + " of " +
         std::to_string(want.size()) + " metrics differ\n" + lines.str();
}

TEST(ReferenceOutputs, ComparisonNamesTheChangedJobAndField) {
  RunResult result;
  for (std::uint32_t i = 0; i < 30; ++i) {
    JobRecord r;
    r.index = i;
    r.start_time = 10.0 * i + 0.1;
    r.finish_time = 10.0 * i + 5.3;
    r.num_gpus = 1 + static_cast<int>(i % 4);
    result.jobs.push_back(r);
  }
  const GoldenTable expected = jobs_table(result);
  // Round trip through the CSV text.
  const auto path = std::filesystem::temp_directory_path() / "clustersim_golden_comparison.csv";
  write_text_file(path, expected.csv());
  const GoldenTable read = read_golden_table(path);
  std::filesystem::remove(path);
  EXPECT_EQ(compare_tables(read, jobs_table(result), "job"), "");

  result.jobs[17].finish_time = std::nextafter(result.jobs[17].finish_time, 1e9);  // one ulp
  result.jobs[23].preemptions = 2;
  const std::string report = compare_tables(read, jobs_table(result), "job");
  EXPECT_NE(report.find("2 of 30 jobs differ"), std::string::npos) << report;
  EXPECT_NE(report.find("job 17 finish_time: expected " + exact_text(175.3) + ", actual " +
                        exact_text(result.jobs[17].finish_time)),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("job 23 preemptions: expected 0, actual 2"), std::string::npos) << report;
  EXPECT_EQ(report.find("job 18"), std::string::npos) << report;

  result.jobs.pop_back();
  EXPECT_NE(compare_tables(read, jobs_table(result), "job").find("job 29: missing"),
            std::string::npos);

  GoldenTable metrics{metrics_columns(), {}, {}};
  metrics.add_row("fifo/x", metrics_cells(RunMetrics{}));
  GoldenTable changed = metrics;
  RunMetrics m;
  m.jct_p99 = 0.5;
  changed.rows[0] = metrics_cells(m);
  const std::string metrics_report = compare_metric_rows(metrics, changed);
  EXPECT_NE(metrics_report.find("1 of " + std::to_string(run_metric_fields().size()) +
                                " metrics differ\n    jct_p99: expected 0, actual 0.5"),
            std::string::npos)
      << metrics_report;
}

// Fields left out of the per-job golden files, checked against their derivation instead.
std::string check_derived_job_fields(const RunResult& result, const std::vector<JobSpec>& jobs,
                                     std::size_t listed = 10) {
  std::ostringstream lines;
  std::size_t failures = 0;
  const auto fail = [&](std::size_t job, const char* field, const std::string& expected,
                        const std::string& actual) {
    if (failures++ < listed)
      lines << "    job " << job << ' ' << field << ": expected " << expected << ", actual "
            << actual << '\n';
  };
  if (result.jobs.size() != jobs.size())
    return "  " + std::to_string(result.jobs.size()) + " job records for " +
           std::to_string(jobs.size()) + " jobs\n";
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobRecord& r = result.jobs[i];
    if (r.index != i) fail(i, "index", std::to_string(i), std::to_string(r.index));
    if (std::memcmp(&r.submit_time, &jobs[i].submit_time, sizeof(double)) != 0)
      fail(i, "submit_time", exact_text(jobs[i].submit_time), exact_text(r.submit_time));
    if (r.num_gpus != jobs[i].num_gpus)
      fail(i, "num_gpus", std::to_string(jobs[i].num_gpus), std::to_string(r.num_gpus));
    const double jct = r.finish_time - r.submit_time;
    if (r.finish_time >= 0 ? std::memcmp(&r.jct, &jct, sizeof(double)) != 0 : r.jct != 0.0)
      fail(i, "jct", exact_text(r.finish_time >= 0 ? jct : 0.0), exact_text(r.jct));
  }
  if (failures == 0) return "";
  return "  derived per-job fields: " + std::to_string(failures) + " differ\n" + lines.str();
}

std::string job_file_name(const std::string& run) {
  std::string name = run;
  for (char& c : name)
    if (c == '/') c = '.';
  return name + ".csv";
}

struct ReferenceRun {
  std::string name;
  SimOptions options;
  std::vector<JobSpec> jobs;
};

// The placements the reference outputs cover: all but `topology`, which came after them and is
// checked by hand (placement_test.cc, fabric_test.cc); without [fabric] it packs like
// consolidate, and the rotation of job_golden_runs() stays over the same four.
std::vector<std::string> reference_placements() {
  std::vector<std::string> names = placement_policy_names();
  std::erase(names, "topology");
  return names;
}

// 16 nodes of 4 GPUs in racks of 4 (enough to fragment and to span racks), three VCs, costs,
// CPUs and memory modelled, a loaded random workload of 1, 2, 4, 8 and 16-GPU jobs.
std::vector<ReferenceRun> reference_runs() {
  std::vector<ReferenceRun> runs;
  const auto jobs =
      testing::random_jobs(2500, 15.0, 900.0, {1, 1, 1, 2, 4, 8, 16}, 23, {"a", "b", "c"});
  for (const auto& policy : scheduling_policy_names())
    for (const auto& placement : reference_placements())
      for (const VcQuotaMode quota : {VcQuotaMode::kStrict, VcQuotaMode::kLend}) {
        SimOptions options = testing::small_cluster(16, 4, 4);
        options.check_invariants = false;
        options.cluster.groups[0].cpus_per_node = 32;
        options.cluster.groups[0].mem_gb_per_node = 256;
        options.cluster.vcs = {{"a", 24}, {"b", 24}, {"c", 16}};
        options.reject_impossible = true;
        options.scheduler.policy = policy;
        options.scheduler.placement = placement;
        options.scheduler.vc_quota = quota;
        options.scheduler.lease_s = 120;
        options.scheduler.checkpoint_s = 7;
        options.scheduler.restore_s = 11;
        options.penalty = {0.9, 0.8};
        options.sample_interval_s = 500;
        runs.push_back(
            {policy + "/" + placement + "/" + (quota == VcQuotaMode::kStrict ? "strict" : "lend"),
             options, jobs});
      }
  // One GPU type and no VCs (rounds take their fast path), with and without backfill, at two
  // loads.
  for (const auto& policy : scheduling_policy_names())
    for (const bool backfill : {true, false})
      for (const double interarrival : {15.0, 6.0}) {
        SimOptions options = testing::small_cluster(16, 4, 4);
        options.check_invariants = false;
        options.scheduler.policy = policy;
        options.scheduler.backfill = backfill;
        options.scheduler.lease_s = 120;
        options.scheduler.checkpoint_s = 7;
        options.scheduler.restore_s = 11;
        options.sample_interval_s = 500;
        runs.push_back(
            {policy + "/one-type" + (backfill ? "" : "/strict-order") +
                 (interarrival < 10 ? "/overloaded" : ""),
             options, testing::random_jobs(2500, interarrival, 900.0, {1, 1, 1, 2, 4, 8, 16}, 29)});
      }
  // Strict order, priorities, two GPU types.
  for (const auto& policy : scheduling_policy_names()) {
    SimOptions options = testing::small_cluster(16, 4, 4);
    options.check_invariants = false;
    options.scheduler.policy = policy;
    options.scheduler.backfill = false;
    options.scheduler.honor_priority = true;
    options.sample_interval_s = 500;
    NodeGroupSpec other = options.cluster.groups[0];
    other.name = "k80";
    other.gpu_type = "k80";
    other.nodes = 6;
    options.cluster.groups.push_back(other);
    auto typed = jobs;
    for (std::size_t i = 0; i < typed.size(); ++i) typed[i].priority = static_cast<int>(i % 3);
    runs.push_back({policy + "/strict-order+priority+two-types", options, typed});
  }
  return runs;
}

// The runs with a per-job golden file (see the header comment): every policy with VCs, the
// placement and quota mode rotating; every policy on the overloaded one-type workload; each
// other kind of run once.
std::set<std::string> job_golden_runs() {
  std::set<std::string> runs;
  const auto policies = scheduling_policy_names();
  const auto placements = reference_placements();
  for (std::size_t p = 0; p < policies.size(); ++p) {
    runs.insert(policies[p] + "/" + placements[p % placements.size()] + "/" +
                ((p / placements.size()) % 2 == 0 ? "strict" : "lend"));
    runs.insert(policies[p] + "/one-type/overloaded");
  }
  // The other one-type variants and the two-type run, each once (by other policies).
  runs.insert(policies[1 % policies.size()] + "/one-type");
  runs.insert(policies[2 % policies.size()] + "/one-type/strict-order");
  runs.insert(policies[3 % policies.size()] + "/one-type/strict-order/overloaded");
  runs.insert(policies[4 % policies.size()] + "/strict-order+priority+two-types");
  return runs;
}

// The reference runs are checked in kReferenceParts tests of every kReferenceParts-th run each,
// so that the sanitizer build's sharded test binaries (tests/CMakeLists.txt) spread them: whole,
// they took 89 s of one shard under ASan. Writing goldens or digests runs them all in part 0.
constexpr std::size_t kReferenceParts = 4;

class ReferenceOutputs : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ReferenceOutputs, EveryPolicyAndPlacementIsBitIdenticalToTheReferenceEngine) {
  const std::filesystem::path data =
      std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "tests/sim/core/data";
  const bool regenerate = std::getenv("CLUSTERSIM_WRITE_GOLDENS") != nullptr;
  const char* digest_out = std::getenv("CLUSTERSIM_WRITE_DIGESTS");
  const char* golden_out = std::getenv("CLUSTERSIM_GOLDEN_OUT");
  const std::filesystem::path actual_dir =
      golden_out ? std::filesystem::path(golden_out)
                 : std::filesystem::path(CLUSTERSIM_BIN_DIR) / ".." / "reference_outputs_actual";
  const bool whole = regenerate || digest_out || golden_out;
  const std::size_t part = GetParam(), parts = whole ? 1 : kReferenceParts;
  if (whole && part != 0) GTEST_SKIP() << "part 0 runs every reference run to write its files";

  std::map<std::string, std::uint64_t> expected_digest;
  {
    std::ifstream in(data / "reference_digests.txt");
    std::string name;
    std::uint64_t value;
    while (in >> name >> std::hex >> value) expected_digest[name] = value;
  }
  const GoldenTable expected_metrics = read_golden_table(data / "golden/metrics.csv");
  const std::set<std::string> with_jobs_golden = job_golden_runs();

  std::ostringstream digests;
  GoldenTable actual_metrics{metrics_columns(), {}, {}};
  std::map<std::string, std::string> actual_jobs_csv;  // file name -> text, to write
  std::ostringstream report;
  std::size_t failed_runs = 0, runs = 0, position = 0;
  for (const ReferenceRun& run : reference_runs()) {
    if (position++ % parts != part) continue;
    ++runs;
    const RunResult result = simulate(run.options, run.jobs);
    const std::uint64_t value = digest(result);
    digests << run.name << ' ' << std::hex << value << '\n';
    actual_metrics.add_row(run.name, metrics_cells(result.metrics));
    const GoldenTable jobs = jobs_table(result);
    const std::string file = job_file_name(run.name);

    std::string run_report = check_derived_job_fields(result, run.jobs);
    const auto found = expected_digest.find(run.name);
    const bool digest_differs = found == expected_digest.end() || found->second != value;
    if (found == expected_digest.end())
      run_report += "  no reference digest\n";
    else if (digest_differs)
      run_report += "  per-job digest differs" +
                    std::string(with_jobs_golden.count(run.name)
                                    ? "\n"
                                    : " (no golden per-job file for this run; the actual one is "
                                      "written as jobs/" +
                                          file + ")\n");
    if (with_jobs_golden.count(run.name)) {
      const GoldenTable expected_jobs = read_golden_table(data / "golden/jobs" / file);
      if (expected_jobs.columns.empty())
        run_report += "  no golden file jobs/" + file + "\n";
      else
        run_report +=
            prefixed("golden/jobs/" + file + ": ", compare_tables(expected_jobs, jobs, "job"));
    }
    GoldenTable expected_row{expected_metrics.columns, {}, {}};
    GoldenTable actual_row{actual_metrics.columns, {}, {}};
    actual_row.add_row(run.name, actual_metrics.rows.back());
    for (std::size_t r = 0; r < expected_metrics.keys.size(); ++r)
      if (expected_metrics.keys[r] == run.name)
        expected_row.add_row(run.name, expected_metrics.rows[r]);
    if (expected_row.keys.empty())
      run_report += "  no row in golden/metrics.csv\n";
    else
      run_report += compare_metric_rows(expected_row, actual_row);

    if (with_jobs_golden.count(run.name) || digest_differs || regenerate)
      actual_jobs_csv[file] = jobs.csv();
    if (!run_report.empty()) {
      ++failed_runs;
      report << run.name << ":\n" << run_report;
    }
  }
  if (digest_out) std::ofstream(digest_out) << digests.str();
  if (regenerate) {
    write_text_file(data / "reference_digests.txt", digests.str());
    write_text_file(data / "golden/metrics.csv", actual_metrics.csv());
    std::filesystem::remove_all(data / "golden/jobs");
    for (const auto& [file, text] : actual_jobs_csv) {
      std::string run = file.substr(0, file.size() - 4);
      for (char& c : run)
        if (c == '.') c = '/';
      if (with_jobs_golden.count(run)) write_text_file(data / "golden/jobs" / file, text);
    }
    return;
  }
  if (digest_out) return;
  // A failing part writes its runs' files (its metric rows as metrics.partN.csv).
  const std::string metrics_file =
      whole ? "metrics.csv" : "metrics.part" + std::to_string(part) + ".csv";
  if (failed_runs > 0 || golden_out) {
    write_text_file(actual_dir / metrics_file, actual_metrics.csv());
    for (const auto& [file, text] : actual_jobs_csv)
      write_text_file(actual_dir / "jobs" / file, text);
  }
  EXPECT_EQ(failed_runs, 0u) << failed_runs << " of " << runs
                             << " runs differ from the reference engine; the actual files are in "
                             << actual_dir.lexically_normal().string() << " (" << metrics_file
                             << ", jobs/)\n"
                             << report.str();
}

INSTANTIATE_TEST_SUITE_P(Part, ReferenceOutputs, ::testing::Range<std::size_t>(0, kReferenceParts));

// The per-job golden subset names existing runs, and golden/jobs holds exactly its files (none
// stale), and every run has a digest and a golden metric row (checked without running them).
TEST(ReferenceGoldenFiles, NameExactlyTheReferenceRuns) {
  const std::filesystem::path data =
      std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "tests/sim/core/data";
  std::set<std::string> run_names;
  for (const ReferenceRun& run : reference_runs()) run_names.insert(run.name);
  std::set<std::string> golden_files, subset_files;
  for (const std::string& run : job_golden_runs()) {
    EXPECT_TRUE(run_names.count(run))
        << "job_golden_runs() names a run that does not exist: " << run;
    subset_files.insert(job_file_name(run));
  }
  if (std::filesystem::is_directory(data / "golden/jobs"))
    for (const auto& entry : std::filesystem::directory_iterator(data / "golden/jobs"))
      golden_files.insert(entry.path().filename().string());
  EXPECT_EQ(golden_files, subset_files)
      << "golden/jobs holds other files than job_golden_runs() names";
  std::set<std::string> digest_names;
  {
    std::ifstream in(data / "reference_digests.txt");
    std::string name;
    std::uint64_t value;
    while (in >> name >> std::hex >> value) digest_names.insert(name);
  }
  EXPECT_EQ(digest_names, run_names) << "reference_digests.txt names other runs";
  const GoldenTable metrics = read_golden_table(data / "golden/metrics.csv");
  EXPECT_EQ(std::set<std::string>(metrics.keys.begin(), metrics.keys.end()), run_names)
      << "golden/metrics.csv has rows for other runs";
}

}  // namespace
}  // namespace clustersim
