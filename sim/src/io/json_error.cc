#include "io/internal/json_error.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace clustersim::io_internal {

namespace {

std::size_t line_of_byte(const std::string& text, std::size_t byte) {
  const auto end = text.begin() + static_cast<std::ptrdiff_t>(std::min(byte, text.size()));
  return 1 + static_cast<std::size_t>(std::count(text.begin(), end, '\n'));
}

// nlohmann's what() starts with "[json.exception.parse_error.101] "; users need the rest.
std::string without_prefix(const std::string& what) {
  if (what.rfind("[json.exception.", 0) == 0) {
    const auto close = what.find("] ");
    if (close != std::string::npos) return what.substr(close + 2);
  }
  return what;
}

// The first place where `token` stands as a whole JSON number in `text` (not inside a longer
// number or a word), or npos.
std::size_t find_number(const std::string& text, const std::string& token) {
  const auto part_of_number = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+';
  };
  for (std::size_t at = text.find(token); at != std::string::npos; at = text.find(token, at + 1)) {
    const bool starts = at == 0 || !part_of_number(text[at - 1]);
    const std::size_t end = at + token.size();
    const bool ends = end == text.size() || !part_of_number(text[end]);
    if (starts && ends) return at;
  }
  return std::string::npos;
}

}  // namespace

InputError json_parse_error(const std::string& file, const std::string& text,
                            const std::exception& error, const std::string& field) {
  if (const auto* parse = dynamic_cast<const nlohmann::json::parse_error*>(&error)) {
    // parse.byte is 1-based: the position just past the failing character.
    const std::size_t line = line_of_byte(text, parse->byte > 0 ? parse->byte - 1 : 0);
    return InputError(file, line, field,
                      "invalid JSON: " + excerpt(without_prefix(error.what()), 160));
  }
  if (const auto* range = dynamic_cast<const nlohmann::json::out_of_range*>(&error);
      range != nullptr && range->id == 406) {
    // "number overflow parsing '1e999'": find that number to name its line.
    const std::string what = error.what();
    const auto open = what.find('\'');
    const auto close = what.rfind('\'');
    if (open != std::string::npos && close > open) {
      const std::string token = what.substr(open + 1, close - open - 1);
      const std::size_t at = find_number(text, token);
      return InputError(file, at == std::string::npos ? 0 : line_of_byte(text, at), field,
                        "number too large for a double: " + excerpt(token));
    }
  }
  return InputError(file, 0, field, "invalid JSON: " + excerpt(without_prefix(error.what()), 160));
}

}  // namespace clustersim::io_internal
