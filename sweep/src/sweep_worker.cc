// The side of ranks 1..N-1 (sweep_worker.h).
#include "sweep_worker.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "clustersim/sweep/point_runner.h"
#include "clustersim/sweep/result_store.h"
#include "clustersim/sweep/row_spool.h"
#include "rank_loop.h"
#include "rank_messages.h"
#include "rank_points.h"

namespace clustersim::sweep::sweep_internal {

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

}  // namespace clustersim::sweep::sweep_internal
