// Helpers shared by the workload tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>

#include "clustersim/error.h"

namespace clustersim::testing {

inline std::string workload_data(const std::string& name) {
  return std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/sim/workload/data/" + name;
}

inline std::filesystem::path shared_traces() {
  return std::filesystem::path(CLUSTERSIM_SHARED_DIR) / "traces";
}

inline std::string shared_throughputs() {
  return std::string(CLUSTERSIM_SHARED_DIR) + "/reference/gavel_simulation_throughputs.json";
}

// Runs `read`, expects an InputError and checks where it points.
inline void expect_input_error(const std::function<void()>& read, const std::string& file,
                               std::size_t line, const std::string& field) {
  try {
    read();
    ADD_FAILURE() << "expected InputError at " << file << ":" << line << " field '" << field << "'";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), file) << error.what();
    EXPECT_EQ(error.line(), line) << error.what();
    EXPECT_EQ(error.field(), field) << error.what();
  }
}

}  // namespace clustersim::testing
