// The error a config gives: shared by the config tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/error.h"

namespace clustersim::testing {

// A config's file name (in its errors) and the folder its relative paths start from.
struct ConfigFile {
  std::string name;
  std::string base_dir;

  // The InputError that parse_run_config throws for `text` read as this file with
  // `overrides`; a test failure, and an empty error, when it parses.
  InputError error(const std::string& text, const std::vector<std::string>& overrides = {}) const {
    try {
      parse_run_config(text, name, base_dir, overrides);
    } catch (const InputError& error) {
      return error;
    }
    ADD_FAILURE() << "expected an InputError for:\n" << text;
    return InputError("", 0, "", "");
  }
};

}  // namespace clustersim::testing
