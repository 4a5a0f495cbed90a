#include "clustersim/sweep/sweep_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "clustersim/atomic_file.h"
#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "clustersim/simulator.h"
#include "clustersim/sweep/communicator.h"
#include "clustersim/sweep/dispatcher.h"
#include "clustersim/sweep/hash.h"
#include "clustersim/sweep/journal.h"
#include "clustersim/sweep/output_lock.h"
#include "clustersim/sweep/point_runner.h"
#include "clustersim/sweep/progress.h"
#include "clustersim/sweep/result_store.h"
#include "clustersim/sweep/row_spool.h"

#ifndef CLUSTERSIM_VERSION
#define CLUSTERSIM_VERSION "unknown"
#endif
#ifndef CLUSTERSIM_GIT_COMMIT
#define CLUSTERSIM_GIT_COMMIT "unknown"
#endif

namespace clustersim::sweep {

namespace {

#include "default_grid.inc"  // kDefaultGridText, generated from sweep/examples/default/grid.toml

constexpr std::string_view kDefaultGridName = "sweep/examples/default/grid.toml (embedded)";
using Clock = std::chrono::steady_clock;
// A rank's main thread sleeps between MPI polls: briefly after activity, backing off to
// kMaxPoll when nothing happens (each wake-up costs CPU that simulations could use). Work
// prefetch hides the latency; a finishing local point wakes the thread at once.
constexpr auto kMinPoll = std::chrono::microseconds(100);
constexpr auto kMaxPoll = std::chrono::microseconds(10000);

class PollBackoff {
 public:
  void activity() { interval_ = kMinPoll; }
  std::chrono::microseconds next() {
    auto current = interval_;
    interval_ = std::min(interval_ * 2, kMaxPoll);
    return current;
  }

 private:
  std::chrono::microseconds interval_ = kMinPoll;
};
// A stopping rank 0 waits this long for the other ranks' last results before it writes the file.
constexpr auto kStopGrace = std::chrono::seconds(10);
constexpr auto kJournalSyncInterval = std::chrono::seconds(5);
// From this many ranks on, every rank writes its share of the final file's row tables.
constexpr int kCollectiveRanks = 16;

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signal_number) { g_stop_signal = signal_number; }

class StopSignals {
 public:
  StopSignals() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &action, &previous_[i]);
  }
  ~StopSignals() {
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &previous_[i], nullptr);
  }

 private:
  static constexpr int kSignals[3] = {SIGTERM, SIGUSR1, SIGINT};
  struct sigaction previous_[3];
};

std::string now_iso8601() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string hostname() {
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  return name;
}

// Key=value lines (journal header and session records).
std::string key_values(const std::map<std::string, std::string>& values) {
  return format_journal_fields(values);
}

std::map<std::string, std::string> parse_key_values(const std::string& text) {
  return parse_journal_fields(text);
}

std::string encode_ids(const std::vector<std::uint64_t>& ids) {
  return std::string(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(std::uint64_t));
}

std::vector<std::uint64_t> decode_ids(const std::string& bytes) {
  std::vector<std::uint64_t> ids(bytes.size() / sizeof(std::uint64_t));
  std::memcpy(ids.data(), bytes.data(), ids.size() * sizeof(std::uint64_t));
  return ids;
}

// A batch of encoded results in one message: u32 size, bytes, repeated.
void append_framed(std::string& batch, const std::string& record) {
  auto size = static_cast<std::uint32_t>(record.size());
  batch.append(reinterpret_cast<const char*>(&size), sizeof size);
  batch += record;
}

template <typename Fn>
void for_each_framed(const std::string& batch, Fn&& fn) {
  std::size_t offset = 0;
  while (offset + sizeof(std::uint32_t) <= batch.size()) {
    std::uint32_t size;
    std::memcpy(&size, batch.data() + offset, sizeof size);
    offset += sizeof size;
    fn(std::string(batch.data() + offset, size));
    offset += size;
  }
}

// point_id sits right after the u32 format tag (see encode_result); rank 0 files records by id
// without decoding their job tables.
std::uint64_t peek_point_id(const std::string& encoded) {
  std::uint64_t id = 0;
  if (encoded.size() < 12) throw std::runtime_error("truncated point result");
  std::memcpy(&id, encoded.data() + 4, sizeof id);
  return id;
}

// What the ranks need to write the final file's row tables together (kAssemble): the temporary
// file, and every result's point id, row counts and spool reference, in point_id order.
std::string encode_assembly(const std::string& temporary, const std::vector<PointResult>& results) {
  std::string bytes;
  auto put = [&](auto value) { bytes.append(reinterpret_cast<const char*>(&value), sizeof value); };
  auto put_text = [&](const std::string& text) {
    put(static_cast<std::uint64_t>(text.size()));
    bytes += text;
  };
  put_text(temporary);
  put(static_cast<std::uint64_t>(results.size()));
  for (const PointResult& result : results) {
    put(result.point_id);
    const RowsRef none;
    const RowsRef& ref = result.rows ? *result.rows : none;
    put_text(ref.file);
    put(ref.offset);
    put(ref.bytes);
    put(ref.checksum);
    put(ref.jobs);
    put(ref.samples);
  }
  return bytes;
}

// A block number (kTurn, kWritten).
std::string encode_block(std::size_t block) {
  const std::uint64_t value = block;
  return std::string(reinterpret_cast<const char*>(&value), sizeof value);
}

void expect_block(const std::string& bytes, std::size_t block, const char* what) {
  std::uint64_t value = 0;
  if (bytes.size() == sizeof value) std::memcpy(&value, bytes.data(), sizeof value);
  if (bytes.size() != sizeof value || value != block)
    throw std::runtime_error(std::string(what) + " for block " + std::to_string(value) +
                             ", expected block " + std::to_string(block));
}

std::vector<PointResult> decode_assembly(const std::string& bytes, std::string& temporary) {
  std::size_t offset = 0;
  auto get = [&](auto& value) {
    if (bytes.size() - offset < sizeof value) throw std::runtime_error("truncated assembly");
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    offset += sizeof value;
  };
  auto get_text = [&](std::string& text) {
    std::uint64_t size = 0;
    get(size);
    if (bytes.size() - offset < size) throw std::runtime_error("truncated assembly");
    text.assign(bytes, offset, size);
    offset += size;
  };
  get_text(temporary);
  std::uint64_t count = 0;
  get(count);
  std::vector<PointResult> results(count);
  for (PointResult& result : results) {
    get(result.point_id);
    RowsRef ref;
    get_text(ref.file);
    get(ref.offset);
    get(ref.bytes);
    get(ref.checksum);
    get(ref.jobs);
    get(ref.samples);
    if (!ref.file.empty()) result.rows = std::move(ref);
  }
  return results;
}

// Trace files are read once per rank and shared by every point that uses them; generated
// workloads depend on the point's seed and are built per point.
class WorkloadCache {
 public:
  std::shared_ptr<const Workload> get(const RunConfig& config) {
    if (!config.workload.trace_path) return std::make_shared<const Workload>(load_workload(config));
    const std::string key = trace_read_key(config);
    {
      std::lock_guard lock(mutex_);
      if (auto found = cache_.find(key); found != cache_.end()) return found->second;
    }
    auto workload = std::make_shared<const Workload>(load_workload(config));
    std::lock_guard lock(mutex_);
    return cache_.emplace(key, workload).first->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Workload>> cache_;
};

void print_error(const std::string& message) {
  std::cerr << "clustersim sweep: error: " << message << "\n";
}

// A rank's per-job rows and samples: its row spool for this session (row_spool.h), written by
// the threads that ran the simulations. A spool that cannot be written (disk full) is an I/O
// failure of the sweep, kept here until the main thread, which talks MPI, stops the run.
class RankRows {
 public:
  RankRows(const std::string& folder, std::int64_t session, int rank)
      : folder_(folder), spool_(folder, spool_file_name(session, rank)) {}
  RowSpool& spool() { return spool_; }
  const std::string& folder() const { return folder_; }
  void fail(const std::string& message) {
    std::lock_guard lock(mutex_);
    if (failure_.empty()) failure_ = message;
  }
  std::string failure() const {
    std::lock_guard lock(mutex_);
    return failure_;
  }
  // CPU the simulating threads spent encoding and spooling rows (capacity benchmark).
  void add_cpu(double seconds) {
    std::lock_guard lock(mutex_);
    cpu_s_ += seconds;
    ++points_;
  }
  std::string report(int rank) const {
    std::lock_guard lock(mutex_);
    char line[256];
    std::snprintf(line, sizeof line,
                  "sweep: rank %d spooled %.1f MB of rows for %zu points, %.1f us CPU/point\n",
                  rank, static_cast<double>(spool_.bytes_written()) / 1e6, points_,
                  points_ ? 1e6 * cpu_s_ / static_cast<double>(points_) : 0.0);
    return line;
  }

 private:
  std::string folder_;
  RowSpool spool_;
  double cpu_s_ = 0.0;
  std::size_t points_ = 0;
  mutable std::mutex mutex_;
  std::string failure_;
};

// A result that must not be recorded: its rows could not be spooled (RankRows::fail).
constexpr std::uint64_t kDroppedPoint = ~std::uint64_t{0};

// A result travels in an MPI message (an int count of bytes, several results per message) and
// is a journal record (a 32-bit size): one larger than this fails its point instead of wrapping.
constexpr std::size_t kMaxResultBytes = std::size_t{1} << 30;

PointResult failed_for_size(const PointResult& result, std::size_t bytes) {
  PointResult failed;
  failed.point_id = result.point_id;
  failed.rank = result.rank;
  failed.elapsed_s = result.elapsed_s;
  failed.error = "the result is " + std::to_string(bytes) + " bytes (" +
                 std::to_string(result.jobs.size()) + " saved jobs, " +
                 std::to_string(result.samples.size()) + " samples), over the limit of " +
                 std::to_string(kMaxResultBytes) +
                 " per point: save fewer jobs or samples (--save-jobs, --save-timeseries)";
  return failed;
}

// Writes the point's rows to this rank's spool (on the calling, simulating thread) and leaves
// only their reference in the result, so that the rows never travel to rank 0.
void spool_rows(PointResult& result, RankRows& rows) {
  if (!result.error.empty()) return;
  PointResult only_rows;
  only_rows.point_id = result.point_id;
  only_rows.jobs = std::move(result.jobs);
  only_rows.samples = std::move(result.samples);
  const std::string payload = encode_result(only_rows);
  if (payload.size() > kMaxResultBytes) {
    result.jobs = std::move(only_rows.jobs);
    result.samples = std::move(only_rows.samples);
    result = failed_for_size(result, payload.size());
    return;
  }
  try {
    result.rows = rows.spool().append(payload, only_rows.jobs.size(), only_rows.samples.size());
  } catch (const SpoolWriteError& error) {
    rows.fail(error.what());
    result.point_id = kDroppedPoint;
  }
}

double thread_cpu_seconds();

// Benchmark hook (sweep/bench/capacity_bench.sh): with CLUSTERSIM_SWEEP_SYNTHETIC set to
// "jobs=N,samples=S,ms=T", points are not simulated: each result gets N job rows and S samples
// of varied, deterministic values after T ms of sleep (no CPU), so that rank 0 and the row
// writers can be driven at a chosen rate and size, and ranks that only sleep can stand for many
// more ranks than there are cores.
struct Synthetic {
  bool on = false;
  std::size_t jobs = 0, samples = 0;
  double ms = 0.0;
};

const Synthetic& synthetic() {
  static const Synthetic parsed = [] {
    Synthetic value;
    const char* text = std::getenv("CLUSTERSIM_SWEEP_SYNTHETIC");
    if (!text || !*text) return value;
    value.on = true;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
      const auto equals = item.find('=');
      if (equals == std::string::npos) continue;
      const std::string key = item.substr(0, equals);
      const double number = std::atof(item.c_str() + equals + 1);
      if (key == "jobs") value.jobs = static_cast<std::size_t>(number);
      if (key == "samples") value.samples = static_cast<std::size_t>(number);
      if (key == "ms") value.ms = number;
    }
    return value;
  }();
  return parsed;
}

double unit_double(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

void fill_synthetic(PointResult& result, std::uint64_t seed) {
  const Synthetic& spec = synthetic();
  if (spec.ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(spec.ms));
  RunMetrics& m = result.metrics;
  m.jobs = spec.jobs;
  m.jct_mean = 1000.0 * (1.0 + unit_double(splitmix64(seed)));
  m.makespan = 1e6 * (1.0 + unit_double(splitmix64(seed + 1)));
  m.gpu_util = unit_double(splitmix64(seed + 2));
  m.events = 3 * spec.jobs;
  result.jobs.resize(spec.jobs);
  double clock = 0.0;
  for (std::size_t j = 0; j < spec.jobs; ++j) {
    const std::uint64_t h = splitmix64(seed ^ (j * 0x9E3779B97F4A7C15ull));
    JobRecord& job = result.jobs[j];
    job.index = static_cast<std::uint32_t>(j);
    clock += 60.0 * unit_double(h);
    job.submit_time = clock;
    job.queue_delay = (h & 7) == 0 ? 3600.0 * unit_double(splitmix64(h)) : 0.0;
    job.start_time = job.submit_time + job.queue_delay;
    const double duration = 60.0 + 36000.0 * unit_double(splitmix64(h + 1));
    job.finish_time = job.start_time + duration;
    job.jct = job.finish_time - job.submit_time;
    job.num_gpus = 1 << (h >> 60 & 3);
    job.nodes = 1;
    job.gpu_seconds = duration * job.num_gpus;
  }
  result.samples.resize(spec.samples);
  for (std::size_t i = 0; i < spec.samples; ++i) {
    Sample& sample = result.samples[i];
    sample.time = 600.0 * static_cast<double>(i);
    sample.busy_gpus = static_cast<int>(splitmix64(seed + i) % 1024);
    sample.idle_gpus = 1024 - sample.busy_gpus;
  }
}

PointResult run_point(const Grid& grid, const SweepOptions& options, WorkloadCache& workloads,
                      int rank, std::uint64_t point_id, RankRows* rows) {
  PointResult result;
  result.point_id = point_id;
  result.rank = rank;
  auto start = Clock::now();
  if (synthetic().on) {
    fill_synthetic(result, grid_point(grid, point_id).seed);
    if (!options.save_jobs) result.jobs.clear();
    if (!options.save_timeseries) result.samples.clear();
  } else
    try {
      GridPoint point = grid_point(grid, point_id);
      RunConfig config = make_point_config(grid, point);
      config.sim.record_samples = options.save_timeseries;
      ConfigRun config_run;
      try {
        config_run = simulate_config(config, workloads.get(config));
      } catch (const ImpossibleJobError& error) {
        throw impossible_job_error(config, error);  // TRACE:LINE: field 'num_gpus': ...
      }
      RunResult& run = config_run.result;
      // The rows saved are the population of the metrics: the measured jobs and samples.
      if (config.workload.steady_plan && !options.whole_run) keep_measured_rows(run);
      result.metrics = run.metrics;
      if (options.save_jobs) result.jobs = std::move(run.jobs);
      if (options.save_timeseries) result.samples = std::move(run.samples);
    } catch (const std::exception& error) {
      result.error = error.what();
      if (result.error.empty()) result.error = "simulation failed";
    } catch (...) {
      result.error = "simulation failed (unknown exception)";
    }
  result.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (rows) {
    const double cpu = thread_cpu_seconds();
    spool_rows(result, *rows);
    rows->add_cpu(thread_cpu_seconds() - cpu);
  }
  return result;
}

// encode_result, or, for a result over kMaxResultBytes (rows that were not spooled), the
// encoding of the point failed for that reason.
std::string encode_checked(const PointResult& result) {
  std::string bytes = encode_result(result);
  if (bytes.size() <= kMaxResultBytes) return bytes;
  return encode_result(failed_for_size(result, bytes.size()));
}

// CPU time of the calling thread: rank 0's main thread does all dispatch, journal and HDF5 work
// (simulations run on arena threads), so this is the harness's own cost, unaffected by sleeping
// or by other processes competing for the cores.
double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Where --overwrite keeps an unfinished sweep's journal until the new sweep completes.
std::string replaced_journal_path_for(const std::string& out) { return out + ".journal.old"; }

// Everything rank 0 decided before the first simulation; broadcast so all ranks agree.
struct Plan {
  Grid grid;
  GridCheck check;
  std::vector<std::string> done;  // encoded result per point_id; empty = still to run
  std::size_t already_done = 0;
  std::string first_start_time;
  std::int64_t sessions = 1;
  bool nothing_to_do = false;
  // Started with --overwrite over an existing result file: that file stays until this sweep is
  // complete (no partial file replaces it on a signal).
  bool replaces_existing = false;
  std::vector<std::string> previous_status;  // nothing_to_do: the finished file's status column
  ShardSpec shard;                           // --shard: this run's share of the grid (shard.h)
  std::vector<bool> members;                 // per point_id: in this run's share
  std::size_t scope_points = 0;              // points in this run's share (grid.size() unsharded)
  std::size_t rows_lost = 0;  // journaled points whose spooled rows are gone: they rerun
  bool whole_run = false;     // --whole-run (provenance)
};

std::string read_grid_text(const SweepOptions& options) {
  if (options.grid_path.empty()) return std::string(default_grid_text());
  return read_input_file(options.grid_path, "grid file");
}

std::string grid_source_name(const SweepOptions& options) {
  return options.grid_path.empty() ? std::string(kDefaultGridName) : options.grid_path;
}

std::string grid_base_dir(const SweepOptions& options) {
  if (options.grid_path.empty()) return ".";
  std::string dir = std::filesystem::path(options.grid_path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// What the grid's check found that the user should know (settings that cannot act, dropped
// trace rows, pseudo-replicates, runs too short before they start).
void print_warnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings)
    std::fprintf(stderr, "sweep: warning: %s\n", warning.c_str());
}

std::map<std::string, std::string> journal_header(const Grid& grid, const SweepOptions& options,
                                                  bool replaces_existing = false,
                                                  const std::vector<std::string>& warnings = {}) {
  std::map<std::string, std::string> header{
      {"schema_version", std::to_string(kResultSchemaVersion)},
      {"grid_sha256", grid.sha256},
      {"points", std::to_string(grid.size())},
      {"save_jobs", options.save_jobs ? "1" : "0"},
      {"save_timeseries", options.save_timeseries ? "1" : "0"},
      {"whole_run", options.whole_run ? "1" : "0"},
      {"replaces_existing", replaces_existing ? "1" : "0"},
      // What `clustersim snapshot` needs to write a result file from the journal alone.
      {"grid_text", grid.text},
      {"grid_path", grid.source_name},
      {"software_version", CLUSTERSIM_VERSION},
      {"git_commit", CLUSTERSIM_GIT_COMMIT}};
  if (!options.shard.empty()) header["shard"] = options.shard;
  header["warnings"] = warnings_json(warnings);
  return header;
}

// Whether the rows of a journaled result are there: always for rows that travelled with it
// (journals of older builds); for spooled rows, their record must be whole in its spool.
bool rows_intact(const std::string& encoded, const std::string& out) {
  PointResult result = decode_result(encoded);
  return !result.rows || spooled_rows_intact(rows_folder_for(out), *result.rows);
}

// Reads what an earlier session left (journal, else a finished result file). Throws InputError
// when it belongs to another grid or other output options.
void load_previous_session(Plan& plan, const SweepOptions& options) {
  const std::string journal = journal_path_for(options.out);
  const Grid& grid = plan.grid;
  if (std::filesystem::exists(journal)) {
    JournalContents contents = read_journal(journal);
    if (contents.records.empty() || contents.records.front().type != RecordType::kHeader) {
      throw InputError(journal, 0, "", "the journal has no header; remove it or use --overwrite");
    }
    auto header = parse_key_values(contents.records.front().payload);
    if (header["grid_sha256"] != grid.sha256) {
      throw InputError(grid.source_name, 0, "",
                       "the grid file changed since this sweep started (" + options.out +
                           " was begun with grid "
                           "sha256 " +
                           header["grid_sha256"].substr(0, 12) + "..., this grid is " +
                           grid.sha256.substr(0, 12) +
                           "...); resuming would mix two grids. Restore the grid file, "
                           "or write to a new --out, or pass --overwrite to start over");
    }
    for (const std::string flag : {"save_jobs", "save_timeseries", "whole_run"}) {
      std::string now = journal_header(grid, options)[flag];
      // Journals written before --whole-run existed saved every row with --save-jobs.
      const std::string was = header.count(flag) ? header[flag] : "0";
      if (was != now) {
        std::string name = flag;
        std::replace(name.begin(), name.end(), '_', '-');
        throw InputError(journal, 0, "",
                         "this sweep was started " + std::string(was == "1" ? "with" : "without") +
                             " --" + name + "; resume it with the same flags");
      }
    }
    plan.replaces_existing = header["replaces_existing"] == "1";
    check_same_shard(journal, header["shard"], options.shard);
    plan.sessions = 0;
    for (auto& record : contents.records) {
      if (record.type == RecordType::kSession) {
        if (plan.sessions++ == 0)
          plan.first_start_time = parse_key_values(record.payload)["start_time"];
      } else if (record.type == RecordType::kPoint) {
        std::uint64_t id = peek_point_id(record.payload);
        if (id >= grid.size())
          throw InputError(journal, 0, "",
                           "names point " + std::to_string(id) + ", not in the grid");
        if (plan.done[id].empty() && !rows_intact(record.payload, options.out)) {
          ++plan.rows_lost;  // its rows did not survive (a node crash): it runs again
          continue;
        }
        if (plan.done[id].empty()) {
          plan.done[id] = std::move(record.payload);
          ++plan.already_done;
        }
      }
    }
    ++plan.sessions;
    return;
  }
  if (std::filesystem::exists(options.out)) {
    ResultFileSummary summary = read_result_file_summary(options.out);
    if (summary.grid_sha256 != grid.sha256) {
      throw InputError(
          grid.source_name, 0, "",
          "the grid file changed since " + options.out +
              " was written; resuming would mix two grids. Use a new --out, or --overwrite");
    }
    check_same_shard(options.out, read_shard_attribute(options.out), options.shard);
    // A finished shard's file holds all of its points (and only those: same grid, same shard).
    if (plan.shard.sharded() ? summary.point_ids.size() != plan.scope_points : !summary.complete) {
      throw InputError(
          options.out, 0, "",
          "is incomplete and its journal " + journal + " is missing; rerun with --overwrite");
    }
    plan.nothing_to_do = true;
    plan.already_done = summary.point_ids.size();
    plan.previous_status = std::move(summary.status);
  }
}

// With the lock held: an existing result (file or journal) is only touched with --resume or
// --overwrite.
void check_existing_output(const SweepOptions& options) {
  bool exists = false;
  for (const std::string& path :
       {options.out, journal_path_for(options.out), replaced_journal_path_for(options.out)}) {
    exists = exists || std::filesystem::exists(path);
  }
  if (exists && !options.resume && !options.overwrite) {
    throw InputError(options.out, 0, "",
                     "already exists (or its journal does): pass --resume to finish that sweep or "
                     "--overwrite to replace it");
  }
}

// With the lock held, temporaries of the result file (PATH.tmp.HOST.PID, or PATH.tmp of older
// versions) belong to writers that died while writing it: remove them.
void remove_stale_temporaries(const std::string& out) {
  const std::filesystem::path target(out);
  const std::filesystem::path folder = target.parent_path().empty() ? "." : target.parent_path();
  const std::string prefix = target.filename().string() + ".tmp";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (name == prefix || name.rfind(prefix + ".", 0) == 0) {
      std::filesystem::remove(entry.path(), error);
    }
  }
}

// --overwrite starts afresh without destroying anything yet: the old result file stays until the
// new one is renamed over it, an unfinished sweep's journal is kept as F.h5.journal.old until
// then (if one is kept already, from an earlier --overwrite that never finished, that older one
// stays and the newer, unfinished replacement is dropped).
void set_aside_previous_results(Plan& plan, const SweepOptions& options) {
  const std::string journal = journal_path_for(options.out);
  const std::string replaced = replaced_journal_path_for(options.out);
  // The spooled rows go with their journal.
  const std::string rows = rows_folder_for(options.out);
  const std::string replaced_rows = rows_folder_for(replaced);
  if (std::filesystem::exists(journal)) {
    if (std::filesystem::exists(replaced)) {
      std::filesystem::remove(journal);
      std::filesystem::remove_all(rows);
    } else {
      std::filesystem::remove_all(replaced_rows);
      std::filesystem::rename(journal, replaced);
      if (std::filesystem::exists(rows)) std::filesystem::rename(rows, replaced_rows);
    }
  }
  plan.replaces_existing = std::filesystem::exists(options.out);
}

std::vector<PointResult> decode_done(const std::vector<std::string>& done) {
  std::vector<PointResult> results;
  for (const auto& encoded : done) {
    if (!encoded.empty()) results.push_back(decode_result(encoded));
  }
  return results;  // in point_id order, since `done` is indexed by point_id
}

struct SessionInfo {
  int ranks = 1;
  std::vector<int> threads_per_rank;
  std::string start_time;
  std::string command_line;
};

Provenance make_provenance(const Plan& plan, const SessionInfo& session) {
  Provenance provenance;
  provenance.text["software_version"] = CLUSTERSIM_VERSION;
  provenance.text["git_commit"] = CLUSTERSIM_GIT_COMMIT;
  provenance.text["start_time"] =
      plan.first_start_time.empty() ? session.start_time : plan.first_start_time;
  provenance.text["session_start_time"] = session.start_time;
  provenance.text["end_time"] = now_iso8601();
  provenance.text["mpi_version"] = MpiSession::library_version();
  provenance.text["hdf5_version"] = hdf5_version();
  provenance.text["tbb_version"] = tbb_version();
  provenance.text["hostname"] = hostname();
  provenance.text["command_line"] = session.command_line;
  const char* job = std::getenv("SLURM_JOB_ID");
  provenance.text["slurm_job_id"] = job ? job : "";
  std::string threads;
  int total = 0;
  for (std::size_t i = 0; i < session.threads_per_rank.size(); ++i) {
    threads += (i ? "," : "") + std::to_string(session.threads_per_rank[i]);
    total += session.threads_per_rank[i];
  }
  provenance.text["threads_per_rank"] = threads;
  provenance.integers["ranks"] = session.ranks;
  provenance.integers["threads"] = total;
  provenance.integers["sessions"] = plan.sessions;
  provenance.text["shard"] = plan.shard.text();
  provenance.integers["shard_points"] = static_cast<std::int64_t>(plan.scope_points);
  provenance.integers["whole_run"] = plan.whole_run ? 1 : 0;
  provenance.text["warnings"] = warnings_json(plan.check.warnings);
  return provenance;
}

// --------------------------------------------------------------------------------------------
// Rank 0: dispatches, runs its own share, journals every result, writes the HDF5 file.
class Coordinator {
 public:
  Coordinator(MpiSession& mpi, Plan& plan, const SweepOptions& options, const SessionInfo& session,
              OutputLock& lock)
      : mpi_(mpi), plan_(plan), options_(options), session_(session), lock_(lock) {}

  int run() {
    const Grid& grid = plan_.grid;
    const std::string journal_path = journal_path_for(options_.out);
    std::optional<JournalWriter> journal;
    if (plan_.sessions > 1) {
      journal.emplace(journal_path, true, read_journal(journal_path).valid_bytes);
    } else {
      journal.emplace(journal_path, false);
      journal->add(RecordType::kHeader,
                   key_values(journal_header(grid, options_, plan_.replaces_existing,
                                             plan_.check.warnings)));
    }
    journal->add(RecordType::kSession, key_values({{"start_time", session_.start_time},
                                                   {"ranks", std::to_string(session_.ranks)},
                                                   {"command_line", session_.command_line}}));
    journal->sync();

    std::vector<PendingPoint> pending;
    double pending_cost = 0.0;
    for (std::uint64_t id = 0; id < grid.size(); ++id) {
      if (!plan_.done[id].empty() || !plan_.members[id]) continue;
      double cost = plan_.check.config_cost[id / grid.replicates];
      pending.push_back({id, cost});
      pending_cost += cost;
    }
    int total_threads = 0;
    for (int threads : session_.threads_per_rank) total_threads += threads;
    Dispatcher dispatcher(std::move(pending), static_cast<std::size_t>(total_threads),
                          DispatchOptions{2.0, options_.max_chunk});
    const int threads = session_.threads_per_rank[0];
    WorkloadCache workloads;
    const std::string rows_folder = rows_folder_for(options_.out);
    std::optional<RankRows> rows;
    if (options_.save_jobs || options_.save_timeseries)
      rows.emplace(rows_folder, plan_.sessions, 0);
    RankRows* rows_of_rank = rows ? &*rows : nullptr;
    PointRunner runner(threads, [&](std::uint64_t id) {
      return run_point(grid, options_, workloads, 0, id, rows_of_rank);
    });
    // This rank's rows could not be spooled: an I/O failure (see run_worker).
    auto check_rows = [&] {
      if (!rows) return;
      const std::string failure = rows->failure();
      if (!failure.empty()) throw SpoolWriteError(failure + "; free space");
    };
    ProgressReporter progress(
        options_.quiet ? nullptr : stderr, plan_.scope_points, plan_.already_done, pending_cost,
        isatty(STDERR_FILENO) != 0,
        std::chrono::milliseconds(static_cast<long>(options_.progress_interval_s * 1000)));
    if (plan_.already_done > 0 && !options_.quiet) {
      std::fprintf(stderr, "sweep: resuming %s: %zu of %zu points already done\n",
                   options_.out.c_str(), plan_.already_done, plan_.scope_points);
    }
    if (plan_.rows_lost > 0) {
      std::fprintf(stderr,
                   "sweep: %zu journaled points rerun: their spooled rows (%s) are missing or "
                   "damaged (lost with a node?)\n",
                   plan_.rows_lost, rows_folder.c_str());
    }

    const auto session_start = Clock::now();
    const double cpu_start = thread_cpu_seconds();
    auto last_sync = Clock::now();
    std::deque<std::uint64_t> backlog;
    std::vector<bool> finished(static_cast<std::size_t>(mpi_.size()), false);
    // Workers that finished normally wait for kAssemble or kDone.
    std::vector<bool> waiting(static_cast<std::size_t>(mpi_.size()), false);
    int workers_left = mpi_.size() - 1;
    bool stopping = false;
    Clock::time_point stop_deadline;
    std::size_t session_points = 0;

    auto record = [&](std::string encoded) {
      std::uint64_t id = peek_point_id(encoded);
      if (id >= grid.size() || !plan_.done[id].empty()) return;  // never twice
      journal->add(RecordType::kPoint, encoded);
      plan_.done[id] = std::move(encoded);
      ++session_points;
      progress.point_done(plan_.check.config_cost[id / grid.replicates]);
    };
    auto request_stop = [&] {
      if (stopping) return;
      stopping = true;
      stop_deadline = Clock::now() + kStopGrace;
      backlog.clear();
      for (int rank = 1; rank < mpi_.size(); ++rank) {
        if (!finished[rank]) mpi_.send(rank, MessageTag::kStop, {});
      }
      if (!options_.quiet)
        std::fprintf(stderr, "\nsweep: stop requested; saving the points done so far\n");
    };

    PollBackoff backoff;
    while (true) {
      for (PointResult& result : runner.take_completed()) {
        record(encode_checked(result));
        backoff.activity();
      }
      check_rows();
      Message message;
      while (mpi_.poll(message)) {
        backoff.activity();
        switch (message.tag) {
          case MessageTag::kResults:
            for_each_framed(message.bytes, record);
            break;
          case MessageTag::kRequestWork:
            mpi_.send(
                message.source, MessageTag::kWork,
                encode_ids(stopping ? std::vector<std::uint64_t>{} : dispatcher.next_chunk()));
            break;
          case MessageTag::kFinished:
            if (!finished[message.source]) --workers_left;
            finished[message.source] = true;
            waiting[message.source] = message.bytes == "W";
            break;
          case MessageTag::kInterrupted:
            request_stop();
            break;
          default:
            break;
        }
      }
      if (g_stop_signal != 0) request_stop();
      if (!stopping) {
        while (runner.running() < static_cast<std::size_t>(threads)) {
          if (backlog.empty()) {
            auto chunk = dispatcher.next_chunk();
            if (chunk.empty()) break;
            backlog.insert(backlog.end(), chunk.begin(), chunk.end());
          }
          runner.submit(backlog.front());
          backlog.pop_front();
        }
      }
      if (journal->buffered() > 0) journal->flush();
      if (Clock::now() - last_sync > kJournalSyncInterval) {
        journal->sync();
        last_sync = Clock::now();
      }
      mpi_.progress();
      progress.maybe_print();

      if (stopping) {
        if (workers_left == 0 || Clock::now() > stop_deadline) break;
      } else if (dispatcher.empty() && backlog.empty() && runner.running() == 0 &&
                 workers_left == 0) {
        for (PointResult& result : runner.take_completed()) record(encode_checked(result));
        break;
      }
      // Alone, nothing but a finishing point (or the progress clock) needs this thread.
      runner.wait_for_completion(mpi_.size() == 1 ? std::chrono::microseconds(50000)
                                                  : backoff.next());
    }

    for (PointResult& result : runner.take_completed()) record(encode_checked(result));
    check_rows();
    if (rows && !stopping) rows->spool().sync();
    journal->sync();
    const double run_cpu_s = thread_cpu_seconds() - cpu_start;
    const auto final_start = Clock::now();
    std::vector<PointResult> results = decode_done(plan_.done);
    const bool complete = results.size() == plan_.scope_points;
    // A file that --overwrite replaces stays until this sweep is complete.
    const bool keep_previous =
        !complete && plan_.replaces_existing && std::filesystem::exists(options_.out);
    // Who writes the row tables of the final file (sweep/README.md, Capacity):
    // - from kCollectiveRanks ranks on, every rank an equal share of whole chunks into the file
    //   through MPI-IO (collective writes): no rank is in every row's path;
    // - on fewer ranks, rank 0 writes the file's skeleton and the other ranks read the spools,
    //   compress the chunks and write them in turn, block by block (plain HDF5, no MPI-IO):
    //   rank 0's own work stays that of a sweep without rows;
    // - rank 0 alone, on all its threads: on one rank, when stopped, or with rows that came in
    //   results (older journals).
    // CLUSTERSIM_SWEEP_FINAL=serial, =compress or =collective overrides the choice.
    const ResultFileOptions file_options{options_.save_jobs, options_.save_timeseries};
    const char* final_mode = std::getenv("CLUSTERSIM_SWEEP_FINAL");
    std::string mode = final_mode ? final_mode : "";
    if (!mode.empty() && mode != "serial" && mode != "compress" && mode != "collective") {
      std::fprintf(stderr,
                   "sweep: warning: CLUSTERSIM_SWEEP_FINAL=%s is not serial, compress or "
                   "collective: ignored\n",
                   mode.c_str());
      mode.clear();
    }
    if (mode.empty()) mode = mpi_.size() >= kCollectiveRanks ? "collective" : "compress";
    bool together = !keep_previous && rows && mpi_.size() > 1 && !stopping && mode != "serial";
    for (const PointResult& result : results)
      together = together && (result.rows || (result.jobs.empty() && result.samples.empty()));
    for (int rank = 1; rank < mpi_.size() && together; ++rank) together = waiting[rank];
    if (together) {
      // Rank 0 writes the skeleton (everything but the rows), then hands the ranks what they
      // need to write the rows: in turn (kCompress) or together (kAssemble).
      const std::string temporary = temporary_path_for(options_.out);
      try {
        write_result_skeleton(temporary, grid, results, file_options,
                              make_provenance(plan_, session_));
      } catch (...) {
        for (int rank = 1; rank < mpi_.size(); ++rank) mpi_.send(rank, MessageTag::kDone, {});
        mpi_.drain_sends();
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        throw;
      }
      const bool in_turn = mode == "compress";
      for (int rank = 1; rank < mpi_.size(); ++rank)
        mpi_.send(rank, in_turn ? MessageTag::kCompress : MessageTag::kAssemble, {});
      std::string assembly = encode_assembly(temporary, results);
      mpi_.broadcast(assembly, 0);
      if (in_turn) {
        // The writers take turns in block order; each compresses its next block meanwhile.
        const int workers = mpi_.size() - 1;
        std::string reply;
        const std::size_t blocks = count_row_blocks(results, file_options);
        for (std::size_t block = 0; block < blocks; ++block) {
          const int writer = 1 + static_cast<int>(block % static_cast<std::size_t>(workers));
          mpi_.send(writer, MessageTag::kTurn, encode_block(block));
          mpi_.receive(writer, MessageTag::kWritten, reply);
          expect_block(reply, block, "a rank wrote");
        }
      } else {
        try {
          write_row_tables_collectively(temporary, results, file_options, rows_folder);
        } catch (...) {
          std::error_code ignored;
          std::filesystem::remove(temporary, ignored);
          throw;
        }
      }
      std::filesystem::rename(temporary, options_.out);
    } else {
      for (int rank = 1; rank < mpi_.size(); ++rank)
        if (waiting[rank]) mpi_.send(rank, MessageTag::kDone, {});
      if (!keep_previous)
        write_result_file(options_.out, grid, results, file_options,
                          make_provenance(plan_, session_), rows_folder);
    }
    journal.reset();
    if (complete) {
      std::filesystem::remove(journal_path);
      std::filesystem::remove(replaced_journal_path_for(options_.out));
      std::filesystem::remove_all(rows_folder);
      std::filesystem::remove_all(rows_folder_for(replaced_journal_path_for(options_.out)));
    }
    const double overhead_s = thread_cpu_seconds() - cpu_start;
    if (synthetic().on && !options_.quiet) {
      std::error_code ignored;
      const auto bytes = std::filesystem::file_size(options_.out, ignored);
      std::fprintf(
          stderr, "sweep: final file %.1f MB in %.3f s\n",
          bytes == static_cast<std::uintmax_t>(-1) ? 0.0 : static_cast<double>(bytes) / 1e6,
          std::chrono::duration<double>(Clock::now() - final_start).count());
      if (rows) std::fputs(rows->report(0).c_str(), stderr);
    }
    progress.finish();

    const double wall = std::chrono::duration<double>(Clock::now() - session_start).count();
    const double per_point = session_points ? 1e6 / static_cast<double>(session_points) : 0.0;
    if (!options_.quiet) {
      std::fprintf(stderr,
                   "sweep: %zu points in %.3f s (%.2f points/s) on %d ranks x %s threads; rank-0 "
                   "main thread "
                   "(dispatch+journal+HDF5) %.1f us CPU/point (run %.1f, final file %.1f)\n",
                   session_points, wall, wall > 0 ? session_points / wall : 0.0, mpi_.size(),
                   make_provenance(plan_, session_).text["threads_per_rank"].c_str(),
                   overhead_s * per_point, run_cpu_s * per_point,
                   (overhead_s - run_cpu_s) * per_point);
      write_summary_table(std::cout, grid, results, options_.summary_by);
      if (keep_previous) {
        std::cout << "kept the previous " << options_.out << " (this sweep replaces it once "
                  << "complete); " << results.size() << " of " << plan_.scope_points
                  << " points are in " << journal_path << ": rerun with --resume to finish\n";
      } else {
        std::cout << (complete ? "wrote " : "saved a partial ") << options_.out << " ("
                  << results.size() << " of " << plan_.scope_points << " points"
                  << (plan_.shard.sharded() ? " of shard " + plan_.shard.text() : "")
                  << (complete ? ")" : "; rerun with --resume to finish)") << "\n";
      }
      std::cout.flush();
    }
    // Failures are told even under --quiet: the exit status alone does not say why.
    std::vector<std::string> status;
    status.reserve(results.size());
    for (const auto& result : results) status.push_back(result.error.empty() ? "ok" : result.error);
    const std::string failures = summarize_failures(status);
    if (!failures.empty()) std::fprintf(stderr, "%s\n", failures.c_str());
    if (stopping) {
      std::fflush(nullptr);
      lock_.release();  // _Exit runs no destructors
      // Simulations still running on the arena cannot be cancelled; leave without joining them.
      if (workers_left == 0) mpi_.finalize();
      std::_Exit(kExitInterrupted);
    }
    return failures.empty() ? kExitOk : kExitPointsFailed;
  }

 private:
  MpiSession& mpi_;
  Plan& plan_;
  const SweepOptions& options_;
  const SessionInfo& session_;
  OutputLock& lock_;
};

// Ranks 1..N-1: ask for chunks ahead of need, run them, send results back as they finish.
int run_worker(MpiSession& mpi, const Grid& grid, const SweepOptions& options, int threads,
               std::int64_t session) {
  WorkloadCache workloads;
  const int rank = mpi.rank();
  std::optional<RankRows> rows;
  try {
    if (options.save_jobs || options.save_timeseries)
      rows.emplace(rows_folder_for(options.out), session, rank);
  } catch (const SpoolWriteError& error) {
    print_error(error.what());
    mpi.abort(kExitFailure);
  }
  RankRows* rows_of_rank = rows ? &*rows : nullptr;
  PointRunner runner(threads, [&](std::uint64_t id) {
    return run_point(grid, options, workloads, rank, id, rows_of_rank);
  });
  // Rows that could not be spooled end the sweep as an I/O failure: rank 0 has journaled every
  // result it received, and --resume reruns the rest.
  auto check_rows = [&] {
    if (!rows) return;
    const std::string failure = rows->failure();
    if (failure.empty()) return;
    print_error("rank " + std::to_string(rank) + ": " + failure +
                " (the journal keeps the finished points: free space and rerun with --resume)");
    std::fflush(nullptr);
    mpi.abort(kExitFailure);
  };
  std::deque<std::uint64_t> backlog;
  bool requested = false, no_more_work = false, stopping = false, interrupted_sent = false;

  PollBackoff backoff;
  auto send_completed = [&] {
    auto done = runner.take_completed();
    check_rows();
    if (done.empty()) return;
    backoff.activity();
    // Messages stay under 2 GiB (MPI counts bytes in an int): each result is at most
    // kMaxResultBytes, and a batch is sent before it would pass that size again.
    std::string batch;
    for (const auto& result : done) {
      std::string encoded = encode_checked(result);
      if (!batch.empty() && batch.size() + encoded.size() > kMaxResultBytes) {
        mpi.send(0, MessageTag::kResults, std::move(batch));
        batch.clear();
      }
      append_framed(batch, encoded);
    }
    mpi.send(0, MessageTag::kResults, std::move(batch));
  };

  while (true) {
    send_completed();
    Message message;
    while (mpi.poll(message)) {
      backoff.activity();
      if (message.tag == MessageTag::kWork) {
        requested = false;
        auto ids = decode_ids(message.bytes);
        if (ids.empty()) no_more_work = true;
        backlog.insert(backlog.end(), ids.begin(), ids.end());
      } else if (message.tag == MessageTag::kStop) {
        stopping = true;
      }
    }
    if (g_stop_signal != 0 && !interrupted_sent) {
      mpi.send(0, MessageTag::kInterrupted, {});
      interrupted_sent = true;
    }
    if (stopping) break;
    while (runner.running() < static_cast<std::size_t>(threads) && !backlog.empty()) {
      runner.submit(backlog.front());
      backlog.pop_front();
    }
    // Prefetch: ask while the threads still have work, so a reply's latency is never idle time.
    if (!no_more_work && !requested && backlog.size() < static_cast<std::size_t>(threads)) {
      mpi.send(0, MessageTag::kRequestWork, {});
      requested = true;
    }
    if (no_more_work && backlog.empty() && runner.running() == 0) break;
    mpi.progress();
    runner.wait_for_completion(backoff.next());
  }
  send_completed();
  if (rows && !stopping) {
    try {
      rows->spool().sync();  // the rows reach the disk before this rank reports it is done
    } catch (const SpoolWriteError& error) {
      rows->fail(error.what());
      check_rows();
    }
  }
  if (rows && synthetic().on) std::fputs(rows->report(rank).c_str(), stderr);
  mpi.send(0, MessageTag::kFinished, stopping ? "" : "W");
  mpi.drain_sends();
  if (stopping) {
    std::fflush(nullptr);
    mpi.finalize();
    std::_Exit(kExitInterrupted);
  }
  // Rank 0 says whether the ranks write (kAssemble) or compress (kCompress) the final file's row
  // tables, or not (kDone).
  Message message;
  while (true) {
    if (!mpi.poll(message)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    if (message.tag == MessageTag::kDone || message.tag == MessageTag::kStop) break;
    if (message.tag != MessageTag::kAssemble && message.tag != MessageTag::kCompress) continue;
    std::string assembly;
    mpi.broadcast(assembly, 0);
    try {
      std::string temporary;
      const std::vector<PointResult> results = decode_assembly(assembly, temporary);
      const ResultFileOptions file_options{options.save_jobs, options.save_timeseries};
      if (message.tag == MessageTag::kAssemble) {
        write_row_tables_collectively(temporary, results, file_options,
                                      rows_folder_for(options.out));
      } else {
        // Each block is compressed before its turn comes (while other ranks write theirs).
        std::string turn;
        compress_row_blocks(results, file_options, rows_folder_for(options.out), rank - 1,
                            mpi.size() - 1,
                            [&](std::size_t block, std::vector<std::string> chunks) {
                              mpi.receive(0, MessageTag::kTurn, turn);
                              expect_block(turn, block, "rank 0 gave the turn");
                              write_row_block(temporary, results, file_options, block, chunks);
                              mpi.send(0, MessageTag::kWritten, encode_block(block));
                            });
        mpi.drain_sends();
      }
    } catch (const std::exception& error) {
      print_error("rank " + std::to_string(rank) + ": writing the final file: " + error.what() +
                  " (the journal keeps the finished points: rerun with --resume)");
      std::fflush(nullptr);
      mpi.abort(kExitFailure);
    }
    break;
  }
  return kExitOk;
}

void write_scaling_estimate(std::ostream& out, const Grid& grid, const GridCheck& check);

// Lowest rank that may print when run without MPI (dry runs launched under mpirun/srun).
bool is_first_process() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (const char* value = std::getenv(name)) return std::atoi(value) == 0;
  }
  return true;
}

int run_sweep(const SweepOptions& options, int* argc, char*** argv,
              const std::string& command_line) {
  if (options.dry_run) {
    Grid grid =
        parse_grid(read_grid_text(options), grid_source_name(options), grid_base_dir(options));
    GridCheck check = validate_grid(grid);
    if (is_first_process()) {
      write_dry_run(std::cout, grid, check, parse_shard(options.shard));
      write_scaling_estimate(std::cerr, grid, check);
      print_warnings(check.warnings);
    }
    return kExitOk;
  }

  MpiSession mpi(argc, argv);
  SessionInfo session;
  session.ranks = mpi.size();
  session.start_time = now_iso8601();
  session.command_line = command_line;
  const int threads = choose_thread_count(options.threads);
  session.threads_per_rank = mpi.all_gather(threads);

  // Rank 0 checks everything before anyone simulates; the others learn the verdict. It owns the
  // result file from before it reads or replaces any of it until it exits (output_lock.h).
  std::string verdict;
  std::optional<Plan> plan;
  std::optional<OutputLock> lock;
  if (mpi.rank() == 0) {
    try {
      plan.emplace();
      plan->grid =
          parse_grid(read_grid_text(options), grid_source_name(options), grid_base_dir(options));
      check_output_path(options.out, "--out");  // its folder exists and can be written
      std::string previous_holder;
      lock.emplace(options.out, describe_this_process(session.start_time, command_line),
                   &previous_holder);
      if (!lock->locked()) {
        std::fprintf(stderr,
                     "sweep: warning: the file system of %s does not support locks; nothing "
                     "stops a second sweep from writing it at the same time\n",
                     options.out.c_str());
      } else if (!previous_holder.empty() && !options.quiet) {
        std::fprintf(stderr,
                     "sweep: took over the lock of a sweep that is no longer running (%s)\n",
                     excerpt(previous_holder, 300).c_str());
      }
      check_existing_output(options);
      remove_stale_temporaries(options.out);
      plan->check = validate_grid(plan->grid);
      if (!options.quiet) print_warnings(plan->check.warnings);
      plan->done.resize(plan->grid.size());
      plan->shard = parse_shard(options.shard);
      plan->whole_run = options.whole_run;
      plan->members = shard_members(plan->grid, plan->check, plan->shard);
      plan->scope_points =
          static_cast<std::size_t>(std::count(plan->members.begin(), plan->members.end(), true));
      if (options.resume) load_previous_session(*plan, options);
      if (options.overwrite) set_aside_previous_results(*plan, options);
      if (plan->nothing_to_do && !std::filesystem::exists(journal_path_for(options.out))) {
        // A finished sweep stopped between removing its journal and its spools (kill -9): the
        // file is complete and no journal names them.
        std::filesystem::remove_all(rows_folder_for(options.out));
      }
      if (!plan->nothing_to_do && (options.save_jobs || options.save_timeseries)) {
        // Every rank spools its rows here (row_spool.h). A fresh sweep starts with an empty
        // folder: spools that no journal names are leftovers.
        const std::string rows = rows_folder_for(options.out);
        if (plan->sessions == 1) std::filesystem::remove_all(rows);
        std::filesystem::create_directories(rows);
      }
      verdict =
          plan->nothing_to_do ? "D" : "K" + std::to_string(plan->sessions) + "\n" + plan->grid.text;
    } catch (const OutputBusyError& error) {
      print_error(error.what());
      verdict = "B";
    } catch (const InputError& error) {
      print_error(error.what());
      verdict = "E";
    } catch (const std::exception& error) {
      print_error(error.what());
      verdict = "F";
    }
  }
  mpi.broadcast(verdict, 0);
  if (verdict == "B") return kExitBusy;
  if (verdict == "E") return kExitBadInput;
  if (verdict == "F") return kExitFailure;
  if (verdict == "D") {
    if (mpi.rank() != 0) return kExitOk;
    if (!options.quiet) {
      std::cout << options.out << " already holds all " << plan->already_done << " points of "
                << (plan->shard.sharded() ? "shard " + plan->shard.text() : "this grid") << "\n";
    }
    const std::string failures = summarize_failures(plan->previous_status);
    if (failures.empty()) return kExitOk;
    std::fprintf(stderr, "%s\n", failures.c_str());
    return kExitPointsFailed;
  }

  StopSignals signals;
  if (mpi.rank() == 0) {
    try {
      Coordinator coordinator(mpi, *plan, options, session, *lock);
      return coordinator.run();
    } catch (const std::exception& error) {
      // The journal keeps what is done; the other ranks cannot go on without rank 0.
      print_error(std::string(error.what()) +
                  " (the journal keeps the finished points: rerun with --resume)");
      lock->release();
      if (mpi.size() > 1) mpi.abort(kExitFailure);
      return kExitFailure;
    }
  }
  const std::size_t newline = verdict.find('\n');
  const std::int64_t spool_session = std::stoll(verdict.substr(1, newline - 1));
  Grid grid = parse_grid(std::string_view(verdict).substr(newline + 1), grid_source_name(options),
                         grid_base_dir(options));
  return run_worker(mpi, grid, options, threads, spool_session);
}

// The capacity model of sweep/README.md ("Capacity"), with the constants its benchmark
// (sweep/bench/capacity_bench.sh) measured on the 2-core development VM, and the simulation
// speed of sweep/bench/philly1024_grid.toml there (seconds per unit of estimated cost).
constexpr double kRank0SecondsPerPoint = 12e-6;  // rank 0's main thread, saturated
constexpr double kSerialRowsPerSecond = 0.86e6;  // final row tables by rank 0 alone, 2 cores
// Below kCollectiveRanks: the other ranks compress (each as fast as rank 0 alone, measured
// 2.5e6 on an idle VM: kept at the loaded figure) and write their blocks in turn, one at a time.
constexpr double kCompressRowsPerSecond = kSerialRowsPerSecond;
constexpr double kTurnWriteRowsPerSecond = 1.5e7;  // writing compressed chunks, one writer
constexpr double kRankRowsPerSecond = 1.06e5;      // ... by each rank, its share (MPI-IO)
constexpr double kSecondsPerCostUnit = 2.5e-7;     // one thread of the VM
constexpr double kBytesPerJobRow = 25;             // compressed, in the final file

void write_scaling_estimate(std::ostream& out, const Grid& grid, const GridCheck& check) {
  if (grid.size() == 0 || check.config_cost.empty()) return;
  double seconds = 0.0, rows = 0.0;
  for (std::size_t c = 0; c < check.config_cost.size(); ++c) {
    seconds += check.config_cost[c] * kSecondsPerCostUnit;
    rows += static_cast<double>(check.config_jobs[c]);
  }
  seconds /= static_cast<double>(check.config_cost.size());
  rows /= static_cast<double>(check.config_cost.size());
  const double extra = rows / kRankRowsPerSecond;  // writing a point's rows, on its rank
  // Below kCollectiveRanks, R ranks of one thread: the run takes T / R per point, the final
  // file rows x max(1 / ((R - 1) compress), 1 / one writer's rate) per point.
  const auto compressed_share = [&](int ranks) {
    return rows * ranks / seconds *
           std::max(1.0 / ((ranks - 1) * kCompressRowsPerSecond), 1.0 / kTurnWriteRowsPerSecond);
  };
  char line[1024];
  std::snprintf(
      line, sizeof line,
      "# scaling estimate (sweep/README.md, Capacity; constants measured on a 2-core VM): points "
      "of ~%.3g s on one thread (estimated cost x %.2g s). Rank 0 takes ~%.0f us per point: the "
      "sweep stops scaling near %.0f threads in all. With --save-jobs (at least %.0f job rows, "
      "%.2g MB, per point) the final file, compressed and written in turn by the ranks other "
      "than 0 (below %d ranks), adds ~%.0f%% to the run on 2 ranks, ~%.0f%% on %d; by every "
      "rank (from %d ranks on) it adds ~%.0f%%, and the file system must take ~%.2g MB/s per "
      "thread (%.2g GB/s at 1,000)\n",
      seconds, kSecondsPerCostUnit, kRank0SecondsPerPoint * 1e6, seconds / kRank0SecondsPerPoint,
      rows, rows * kBytesPerJobRow / 1e6, kCollectiveRanks, 100 * compressed_share(2),
      100 * compressed_share(kCollectiveRanks - 1), kCollectiveRanks - 1, kCollectiveRanks,
      100 * extra / seconds, rows * kBytesPerJobRow / (seconds + extra) / 1e6,
      1000 * rows * kBytesPerJobRow / (seconds + extra) / 1e9);
  out << line;
}

std::string format_number(double value) {
  std::ostringstream out;
  if (std::abs(value) >= 1000 || value == std::floor(value)) {
    out << std::fixed << std::setprecision(0) << value;
  } else {
    out << std::fixed << std::setprecision(3) << value;
  }
  return out.str();
}

}  // namespace

std::string_view default_grid_text() { return kDefaultGridText; }

std::string summarize_failures(const std::vector<std::string>& status) {
  std::map<std::string, std::size_t> count_of;
  std::size_t failed = 0;
  for (const std::string& entry : status) {
    if (entry == "ok") continue;
    ++failed;
    ++count_of[entry];
  }
  if (failed == 0) return "";
  std::vector<std::pair<std::string, std::size_t>> reasons(count_of.begin(), count_of.end());
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string line = "sweep: " + std::to_string(failed) + " of " + std::to_string(status.size()) +
                     " points failed (status column of /points): ";
  constexpr std::size_t kShownReasons = 3;
  for (std::size_t i = 0; i < reasons.size() && i < kShownReasons; ++i) {
    line += (i ? "; " : "") + std::to_string(reasons[i].second) + " x " +
            excerpt(reasons[i].first, 160);
  }
  if (reasons.size() > kShownReasons) {
    line += "; and " + std::to_string(reasons.size() - kShownReasons) + " other reasons";
  }
  return line;
}

void write_dry_run(std::ostream& out, const Grid& grid, const GridCheck& check,
                   const ShardSpec& shard) {
  out << "# grid " << grid.source_name << ": " << grid.size()
      << " points = " << grid.configurations() << " configurations x " << grid.replicates
      << " replicates (grid seed " << grid.seed
      << (grid.paired_seeds ? ", paired seeds" : ", per-point seeds") << ")\n";
  const std::vector<bool> members = shard_members(grid, check, shard);
  if (shard.sharded()) {
    double shard_cost = 0.0, grid_cost = 0.0;
    std::size_t points = 0;
    for (std::uint64_t id = 0; id < grid.size(); ++id) {
      const double cost = check.config_cost[id / grid.replicates];
      grid_cost += cost;
      if (!members[id]) continue;
      shard_cost += cost;
      ++points;
    }
    out << "# shard " << shard.text() << ": " << points << " of " << grid.size()
        << " points, estimated cost " << format_number(shard_cost) << " of "
        << format_number(grid_cost) << "\n";
  }
  out << "# columns: point_id replicate seed";
  for (const Axis& axis : grid.axes) out << " " << axis.path;
  out << " est_cost\n";
  double total = 0.0;
  for (std::uint64_t id = 0; id < grid.size(); ++id) {
    if (!members[id]) continue;
    GridPoint point = grid_point(grid, id);
    double cost = check.config_cost[point.config_id];
    total += cost;
    out << point.point_id << " " << point.replicate << " " << point.seed;
    for (std::size_t a = 0; a < grid.axes.size(); ++a)
      out << " " << grid.axes[a].labels[point.value_index[a]];
    out << " " << format_number(cost) << "\n";
  }
  out << "# total estimated cost " << format_number(total)
      << " (units: jobs x (1 + log2 GPUs), x2 if preemptive)\n";
}

void write_summary_table(std::ostream& out, const Grid& grid,
                         const std::vector<PointResult>& results, const std::string& group_by) {
  std::optional<std::size_t> axis_index;
  std::string wanted = group_by.empty() ? "scheduler.policy" : group_by;
  for (std::size_t a = 0; a < grid.axes.size(); ++a) {
    if (grid.axes[a].path == wanted) axis_index = a;
  }
  if (!axis_index && group_by.empty() && !grid.axes.empty()) axis_index = 0;
  struct Row {
    std::size_t points = 0, failed = 0;
    double jct_mean = 0, jct_p99 = 0, queue_mean = 0, makespan = 0, gpu_util = 0, preemptions = 0;
    // Serving (DAG) sweeps.
    double latency_mean = 0, latency_p99 = 0, cache_hit_rate = 0, model_loads = 0, slo = 0;
    // Steady-state verdicts (steady_state.h): steady, overloaded, too short.
    std::size_t steady = 0, overloaded = 0, too_short = 0;
  };
  std::size_t assessed = 0, steady = 0, overloaded = 0, too_short = 0;
  double most_more = 0.0;
  bool serving = false;  // every completed point served queries: show their columns instead
  std::vector<std::string> order;
  std::map<std::string, Row> rows;
  for (const auto& result : results) {
    std::string key = "all";
    if (axis_index)
      key =
          grid.axes[*axis_index].labels[grid_point(grid, result.point_id).value_index[*axis_index]];
    if (!rows.count(key)) order.push_back(key);
    Row& row = rows[key];
    if (!result.error.empty()) {
      ++row.failed;
      continue;
    }
    ++row.points;
    row.jct_mean += result.metrics.jct_mean;
    row.jct_p99 += result.metrics.jct_p99;
    row.queue_mean += result.metrics.queue_mean;
    row.makespan += result.metrics.makespan;
    row.gpu_util += result.metrics.gpu_util;
    row.preemptions += static_cast<double>(result.metrics.preemptions);
    row.latency_mean += result.metrics.query_latency_mean;
    row.latency_p99 += result.metrics.query_latency_p99;
    row.cache_hit_rate += result.metrics.cache_hit_rate;
    row.model_loads += static_cast<double>(result.metrics.model_loads);
    row.slo += result.metrics.query_slo_attainment;
    const RunMetrics& m = result.metrics;
    row.steady += m.steady_state;
    row.overloaded += m.window_overloaded;
    row.too_short += m.window_too_short;
    if (m.steady_state || m.window_too_short || m.window_overloaded) ++assessed;
    steady += m.steady_state;
    overloaded += m.window_overloaded;
    too_short += m.window_too_short;
    most_more = std::max(most_more, m.more_jobs);
  }
  for (const auto& result : results) {
    if (!result.error.empty()) continue;
    serving = result.metrics.queries > 0;
    if (!serving) break;
  }
  const std::string title = axis_index ? grid.axes[*axis_index].path : std::string("grid");
  const int width = static_cast<int>(std::max<std::size_t>(title.size(), 8)) + 2;
  out << "\nmeans over points, by " << title << ":\n";
  if (serving) {
    out << std::left << std::setw(width) << title << std::right << std::setw(7) << "points"
        << std::setw(7) << "failed" << std::setw(17) << "latency_mean_s" << std::setw(16)
        << "latency_p99_s" << std::setw(11) << "slo_met" << std::setw(11) << "cache_hit"
        << std::setw(13) << "model_loads" << std::setw(9) << "gpu_util"
        << "\n";
    for (const auto& key : order) {
      const Row& row = rows[key];
      double n = row.points ? static_cast<double>(row.points) : 1.0;
      out << std::left << std::setw(width) << key << std::right << std::setw(7) << row.points
          << std::setw(7) << row.failed << std::fixed << std::setprecision(3) << std::setw(17)
          << row.latency_mean / n << std::setw(16) << row.latency_p99 / n << std::setw(11)
          << row.slo / n << std::setw(11) << row.cache_hit_rate / n << std::setprecision(1)
          << std::setw(13) << row.model_loads / n << std::setprecision(3) << std::setw(9)
          << row.gpu_util / n << "\n";
    }
    out << std::defaultfloat;
    return;
  }
  out << std::left << std::setw(width) << title << std::right << std::setw(7) << "points"
      << std::setw(7) << "failed" << std::setw(13) << "jct_mean_s" << std::setw(13) << "jct_p99_s"
      << std::setw(13) << "queue_mean_s" << std::setw(13) << "makespan_s" << std::setw(9)
      << "gpu_util" << std::setw(12) << "preemptions";
  if (assessed) out << "  steady/overloaded/too short";
  out << "\n";
  for (const auto& key : order) {
    const Row& row = rows[key];
    double n = row.points ? static_cast<double>(row.points) : 1.0;
    out << std::left << std::setw(width) << key << std::right << std::setw(7) << row.points
        << std::setw(7) << row.failed << std::fixed << std::setprecision(1) << std::setw(13)
        << row.jct_mean / n << std::setw(13) << row.jct_p99 / n << std::setw(13)
        << row.queue_mean / n << std::setw(13) << row.makespan / n << std::setprecision(3)
        << std::setw(9) << row.gpu_util / n << std::setprecision(1) << std::setw(12)
        << row.preemptions / n;
    if (assessed) out << "  " << row.steady << "/" << row.overloaded << "/" << row.too_short;
    out << "\n";
  }
  out << std::defaultfloat;
  if (assessed) {
    out << "steady-state verdicts (columns steady_state, window_overloaded, window_too_short of "
           "/points): "
        << steady << " steady, " << overloaded << " overloaded, " << too_short << " too short";
    if (too_short) out << " (run up to " << most_more << "x more jobs)";
    if (assessed < results.size()) out << ", " << results.size() - assessed << " not assessed";
    out << "\n";
  }
}

int run_sweep_command(int argc, char** argv) {
  SweepOptions options;
  CLI::App app{
      "Runs a grid of simulations (MPI across ranks, threads within a rank) into one HDF5 file.\n"
      "Launch with `mpirun -np N` or `srun --mpi=pmix` for several ranks.",
      "clustersim sweep"};
  app.add_option("grid", options.grid_path,
                 "grid file (TOML: run config tables + [sweep]); default: built-in grid");
  app.add_option("--out,-o", options.out, "HDF5 result file (default: <grid stem>.h5)");
  auto* resume = app.add_flag("--resume", options.resume,
                              "finish an interrupted sweep; only missing points run");
  app.add_flag("--overwrite", options.overwrite, "replace an existing result file")
      ->excludes(resume);
  app.add_flag("--dry-run", options.dry_run,
               "list the points and their estimated cost, run nothing");
  app.add_option(
         "--threads,-j", options.threads,
         "simulation threads per rank (default: SLURM_CPUS_PER_TASK, else the affinity mask)")
      ->check(CLI::Range(1, 4096));
  app.add_flag("--save-jobs", options.save_jobs, "store per-job records of every point (/jobs)");
  app.add_flag("--save-timeseries", options.save_timeseries,
               "store sampled cluster state of every point (/timeseries)");
  app.add_flag("--whole-run", options.whole_run,
               "with --save-jobs/--save-timeseries: every job and sample of a point, warm-up and "
               "drain included, not only the measured ones (the steady-state window)");
  app.add_option("--max-chunk", options.max_chunk, "most points handed out in one message")
      ->check(CLI::Range(1, 100000));
  app.add_option("--progress-interval", options.progress_interval_s,
                 "seconds between progress lines when stderr is not a terminal")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            // CLI::PositiveNumber's message prints DBL_MAX in 300 digits.
            double value = 0.0;
            if (!CLI::detail::lexical_cast(text, value) || !(value > 0.0) || value > 1e9)
              return "must be a number of seconds in (0, 1e9], got '" + excerpt(text) + "'";
            return "";
          },
          "SECONDS"));
  app.add_option("--summary-by", options.summary_by,
                 "axis to group the final summary by (default scheduler.policy)");
  app.add_flag("--quiet,-q", options.quiet, "no progress lines, no summary");
  app.add_option("--shard", options.shard,
                 "run only shard K of N (K = 0..N-1), balanced by estimated cost; join the "
                 "shards' files with `clustersim merge`");

  // argv[0] is the program, argv[1] is "sweep".
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  try {
    app.parse(argc - 1, argv + 1);  // argv[1] ("sweep") stands where CLI11 expects the program
  } catch (const CLI::ParseError& error) {
    int status = app.exit(error);
    return status == 0 ? kExitOk : kExitBadInput;
  }
  try {
    options.shard = parse_shard(options.shard).text();  // "0/1" is the whole grid: ""
  } catch (const InputError& error) {
    print_error(error.what());
    return kExitBadInput;
  }
  if (options.out.empty()) {
    std::string stem = options.grid_path.empty()
                           ? "default"
                           : std::filesystem::path(options.grid_path).stem().string();
    options.out = stem + ".h5";
  }
  try {
    return run_sweep(options, &argc, &argv, command_line);
  } catch (const InputError& error) {
    print_error(error.what());
    return kExitBadInput;
  } catch (const std::exception& error) {
    print_error(error.what());
    return kExitFailure;
  }
}

}  // namespace clustersim::sweep
