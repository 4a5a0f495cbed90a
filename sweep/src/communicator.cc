#include "clustersim/sweep/communicator.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <thread>

namespace clustersim::sweep {

namespace {

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

// Open MPI's blocking calls spin; on an oversubscribed node a spinning rank steals the core of a
// rank that is simulating. Waiting by test-and-sleep costs at most this much latency.
void wait_sleeping(MPI_Request* request) {
  int done = 0;
  while (true) {
    check(MPI_Test(request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace

struct MpiSession::PendingSend {
  std::string bytes;
  MPI_Request request = MPI_REQUEST_NULL;
};

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    if (provided < MPI_THREAD_FUNNELED) {
      MPI_Finalize();
      throw std::runtime_error("MPI library does not provide MPI_THREAD_FUNNELED");
    }
    finalize_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  try {
    finalize();
  } catch (...) {
  }
}

void MpiSession::finalize() {
  drain_sends();
  if (finalize_) MPI_Finalize();
  finalize_ = false;
}

std::string MpiSession::library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  while (!version.empty() && (version.back() == '\n' || version.back() == '\0')) version.pop_back();
  // Open MPI appends a distribution/date line; the first line names the version.
  if (auto newline = version.find('\n'); newline != std::string::npos) version.resize(newline);
  return version;
}

void MpiSession::send(int destination, MessageTag tag, std::string bytes) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::length_error("MPI: a message of " + std::to_string(bytes.size()) +
                            " bytes is over MPI's int count of bytes");
  }
  auto* pending = new PendingSend{std::move(bytes), MPI_REQUEST_NULL};
  int status = MPI_Isend(pending->bytes.data(), static_cast<int>(pending->bytes.size()), MPI_BYTE,
                         destination, static_cast<int>(tag), MPI_COMM_WORLD, &pending->request);
  if (status != MPI_SUCCESS) {
    delete pending;
    check(status, "MPI_Isend");
  }
  pending_.push_back(pending);
}

bool MpiSession::poll(Message& message) {
  int flag = 0;
  MPI_Status status;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
  if (!flag) return false;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  message.source = status.MPI_SOURCE;
  message.tag = static_cast<MessageTag>(status.MPI_TAG);
  message.bytes.resize(static_cast<std::size_t>(count));
  check(MPI_Recv(message.bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  return true;
}

void MpiSession::receive(int source, MessageTag tag, std::string& bytes) {
  int flag = 0;
  MPI_Status status;
  // The sleep doubles up to 5 ms: waits here last a block's compression (tens of ms or more),
  // and every wake-up costs the CPU of a probe.
  auto sleep = std::chrono::microseconds(100);
  while (true) {
    check(MPI_Iprobe(source, static_cast<int>(tag), MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
    if (flag) break;
    progress();
    std::this_thread::sleep_for(sleep);
    sleep = std::min(sleep * 2, std::chrono::microseconds(5000));
  }
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  bytes.resize(static_cast<std::size_t>(count));
  check(MPI_Recv(bytes.data(), count, MPI_BYTE, source, static_cast<int>(tag), MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE),
        "MPI_Recv");
}

bool MpiSession::progress() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    int done = 0;
    check(MPI_Test(&(*it)->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) {
      delete *it;
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  return pending_.empty();
}

void MpiSession::drain_sends() {
  while (!progress()) std::this_thread::sleep_for(std::chrono::microseconds(200));
}

void MpiSession::broadcast(std::string& bytes, int root) {
  std::uint64_t size = bytes.size();
  MPI_Request request;
  check(MPI_Ibcast(&size, 1, MPI_UINT64_T, root, MPI_COMM_WORLD, &request), "MPI_Ibcast");
  wait_sleeping(&request);
  // Every rank knows the size now, so every rank refuses alike (none is left waiting).
  if (size > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    throw std::length_error("MPI: a broadcast of " + std::to_string(size) +
                            " bytes is over MPI's int count of bytes");
  }
  bytes.resize(size);
  if (size == 0) return;
  check(MPI_Ibcast(bytes.data(), static_cast<int>(size), MPI_BYTE, root, MPI_COMM_WORLD, &request),
        "MPI_Ibcast");
  wait_sleeping(&request);
}

std::vector<int> MpiSession::all_gather(int value) {
  std::vector<int> values(static_cast<std::size_t>(size_));
  MPI_Request request;
  check(MPI_Iallgather(&value, 1, MPI_INT, values.data(), 1, MPI_INT, MPI_COMM_WORLD, &request),
        "MPI_Iallgather");
  wait_sleeping(&request);
  return values;
}

void MpiSession::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace clustersim::sweep
