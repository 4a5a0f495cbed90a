// Rank 0's side of a sweep (sweep_coordinator.h).
#include "sweep_coordinator.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "clustersim/atomic_file.h"
#include "clustersim/sweep/dispatcher.h"
#include "clustersim/sweep/journal.h"
#include "clustersim/sweep/point_runner.h"
#include "clustersim/sweep/progress.h"
#include "clustersim/sweep/result_store.h"
#include "clustersim/sweep/row_spool.h"
#include "errno_error.h"
#include "rank_loop.h"
#include "rank_messages.h"
#include "rank_points.h"

namespace clustersim::sweep::sweep_internal {

namespace {

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
    std::map<std::string, std::string> session_fields{
        {"start_time", session_.start_time},     {"ranks", std::to_string(session_.ranks)},
        {"command_line", session_.command_line}, {"hostname", session_.hostname},
        {"slurm_job_id", session_.slurm_job_id}, {"working_directory", session_.working_directory}};
    session_fields.merge(this_build().fields());  // a resume compares builds (resume_plan.cc)
    journal->add(RecordType::kSession, key_values(session_fields));
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
      plan_.done_session[id] = static_cast<std::int32_t>(plan_.sessions);
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
    std::vector<PointResult> results = decode_done(plan_);
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
      rename_into_place(temporary, options_.out);
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

}  // namespace

int run_coordinator(MpiSession& mpi, Plan& plan, const SweepOptions& options,
                    const SessionInfo& session, OutputLock& lock) {
  Coordinator coordinator(mpi, plan, options, session, lock);
  return coordinator.run();
}

}  // namespace clustersim::sweep::sweep_internal
