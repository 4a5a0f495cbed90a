// Errors raised for bad input: each names the file, the line and the field at fault.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace clustersim {

// Raised for malformed input (trace rows, config keys, profiles, grid files).
// `what()` reads "FILE:LINE: field 'FIELD': MESSAGE"; line 0 means "the file as a whole".
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::size_t line, std::string field, std::string message);

  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  std::size_t line_;
  std::string field_;
  std::string message_;
};

}  // namespace clustersim
