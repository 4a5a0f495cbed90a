// Private to the sweep's sources: the bytes of the messages between ranks (communicator.h carries
// them): chunks of point ids, batches of results, the final file's assembly and block numbers.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "clustersim/sweep/point_result.h"

namespace clustersim::sweep::sweep_internal {

std::string encode_ids(const std::vector<std::uint64_t>& ids);
std::vector<std::uint64_t> decode_ids(const std::string& bytes);

// A batch of encoded results in one message: u32 size, bytes, repeated.
void append_framed(std::string& batch, const std::string& record);

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
std::uint64_t peek_point_id(const std::string& encoded);

// What the ranks need to write the final file's row tables together (kAssemble): the temporary
// file, and every result's point id, row counts, spool reference and added columns' names
// (PointResult::job_columns, sample_columns, without values), in point_id order.
std::string encode_assembly(const std::string& temporary, const std::vector<PointResult>& results);
std::vector<PointResult> decode_assembly(const std::string& bytes, std::string& temporary);

// A block number (kTurn, kWritten); expect_block throws unless `bytes` says `block`.
std::string encode_block(std::size_t block);
void expect_block(const std::string& bytes, std::size_t block, const char* what);

}  // namespace clustersim::sweep::sweep_internal
