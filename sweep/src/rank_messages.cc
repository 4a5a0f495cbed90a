// The bytes of the messages between ranks (rank_messages.h).
#include "rank_messages.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace clustersim::sweep::sweep_internal {

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

// point_id sits right after the u32 format tag (see encode_result); rank 0 files records by id
// without decoding their job tables.
std::uint64_t peek_point_id(const std::string& encoded) {
  std::uint64_t id = 0;
  if (encoded.size() < 12) throw std::runtime_error("truncated point result");
  std::memcpy(&id, encoded.data() + 4, sizeof id);
  return id;
}

// What the ranks need to write the final file's row tables together (kAssemble): the temporary
// file, and every result's point id, row counts, spool reference and added columns' names, in
// point_id order.
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
    // The names of the columns components added (their values are in the spool): every rank
    // derives the row tables' schema from them, as rank 0 does.
    for (const auto* columns : {&result.job_columns, &result.sample_columns}) {
      put(static_cast<std::uint64_t>(columns->size()));
      for (const RunResult::Column& column : *columns) put_text(column.name);
    }
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
    for (auto* columns : {&result.job_columns, &result.sample_columns}) {
      std::uint64_t names = 0;
      get(names);
      if (names > bytes.size() - offset) throw std::runtime_error("truncated assembly");
      columns->resize(names);
      for (RunResult::Column& column : *columns) get_text(column.name);
    }
  }
  return results;
}

}  // namespace clustersim::sweep::sweep_internal
