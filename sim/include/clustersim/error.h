// Errors raised for bad input: each names the file, the line and the field at fault.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

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

// A value or a name from the input, cut for a message: at most `max` bytes of it (never half a
// UTF-8 character), control bytes shown as \xNN, and "..." when it was cut. Every message that
// echoes user input goes through this, so a huge or binary cell never floods the terminal.
inline std::string excerpt(std::string_view text, std::size_t max = 40) {
  std::size_t cut = text.size() <= max ? text.size() : max;
  if (cut < text.size()) {
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  }
  std::string out;
  out.reserve(cut + 3);
  for (std::size_t i = 0; i < cut; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += static_cast<char>(byte);
    }
  }
  if (cut < text.size()) out += "...";
  return out;
}

}  // namespace clustersim
