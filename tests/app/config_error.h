// The error a config gives: shared by the config tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/error.h"

namespace clustersim::testing {

// The InputError that parse_run_config throws for `text` read as `file` (relative paths from
// `base_dir`) with `overrides`; a test failure, and an empty error, when it parses.
inline InputError config_error(const std::string& file, const std::string& base_dir,
                               const std::string& text,
                               const std::vector<std::string>& overrides = {}) {
  try {
    parse_run_config(text, file, base_dir, overrides);
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "expected an InputError for:\n" << text;
  return InputError("", 0, "", "");
}

}  // namespace clustersim::testing
