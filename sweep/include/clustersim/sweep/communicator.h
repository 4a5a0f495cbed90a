// The only file that talks MPI. MPI is initialized with MPI_THREAD_FUNNELED: only the main
// thread calls it (simulations run on TBB workers and never touch MPI). Messages are byte
// strings; sends are nonblocking with owned buffers, so neither side can deadlock on a send.
#pragma once

#include <list>
#include <string>
#include <vector>

namespace clustersim::sweep {

enum class MessageTag : int {
  kRequestWork = 1,  // worker -> 0: give me a chunk
  kWork = 2,         // 0 -> worker: point ids (empty: no work left)
  kResults = 3,      // worker -> 0: encoded results
  kFinished = 4,     // worker -> 0: all my results are sent ("W": I wait for kAssemble/kDone)
  kStop = 5,         // 0 -> worker: stop now (signal), send what is done
  kInterrupted = 6,  // worker -> 0: I got SIGTERM/SIGUSR1, please stop everyone
  kAssemble = 7,     // 0 -> worker: join the collective write of the final file's row tables
  kDone = 8,         // 0 -> worker: nothing more to do, leave
  kCompress = 9,     // 0 -> worker: compress your blocks of the final file's row tables
  kTurn = 10,        // 0 -> worker: write block N into the final file now
  kWritten = 11,     // worker -> 0: block N is written (the file is closed)
};

struct Message {
  int source = 0;
  MessageTag tag = MessageTag::kWork;
  std::string bytes;
};

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  static std::string library_version();

  // Nonblocking send; the buffer lives until the send completes (see progress()).
  void send(int destination, MessageTag tag, std::string bytes);
  // Receives one waiting message, if any (never blocks).
  bool poll(Message& message);
  // Waits (sleeping) for the next message from `source` with `tag`, and receives it into
  // `bytes` (whose memory is reused).
  void receive(int source, MessageTag tag, std::string& bytes);
  // Completes finished sends; true when none is left pending.
  bool progress();
  // Waits (sleeping, not spinning: ranks share cores) until every send completed.
  void drain_sends();

  // Collective helpers, sleeping while they wait.
  void broadcast(std::string& bytes, int root);
  std::vector<int> all_gather(int value);
  // Completes pending sends and calls MPI_Finalize (once; the destructor does it otherwise).
  void finalize();
  // Ends MPI without waiting for other ranks' cooperation (used when a rank is gone).
  [[noreturn]] void abort(int code);

 private:
  struct PendingSend;
  int rank_ = 0;
  int size_ = 1;
  bool finalize_ = false;
  std::list<PendingSend*> pending_;
};

}  // namespace clustersim::sweep
