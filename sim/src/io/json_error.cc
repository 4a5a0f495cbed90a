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

// Walks valid JSON text, noting the line where each value starts, until it meets `target`.
class PathLocator {
 public:
  PathLocator(const std::string& text, const std::string& target) : text_(text), target_(target) {}

  std::size_t find() {
    value("", 0);
    return found_;
  }

 private:
  static constexpr int kMaxDepth = 256;

  bool at_end() const { return done_ || pos_ >= text_.size(); }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }
  std::string string_token() {  // at the opening quote; escapes are kept as written
    std::string out;
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) out += text_[pos_++];
      out += text_[pos_++];
    }
    ++pos_;
    return out;
  }
  void value(const std::string& path, int depth) {
    skip_space();
    if (at_end() || depth > kMaxDepth) return;
    if (path == target_) {
      found_ = line_;
      done_ = true;
      return;
    }
    const bool on_the_way = target_.compare(0, path.size(), path) == 0;
    const char c = text_[pos_];
    if (c == '{' || c == '[') {
      const bool object = c == '{';
      ++pos_;
      for (std::size_t index = 0;; ++index) {
        skip_space();
        if (at_end()) return;
        if (text_[pos_] == (object ? '}' : ']')) {
          ++pos_;
          return;
        }
        std::string child;
        if (object) {
          const std::string key = string_token();
          skip_space();
          ++pos_;  // ':'
          child = path.empty() ? key : path + "." + key;
        } else {
          child = path + "[" + std::to_string(index) + "]";
        }
        value(on_the_way ? child : std::string("\x01"), depth + 1);
        if (done_) return;
        skip_space();
        if (!at_end() && text_[pos_] == ',') ++pos_;
      }
    }
    if (c == '"') {
      string_token();
      return;
    }
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}' && text_[pos_] != ']' &&
           !std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }

  const std::string& text_;
  const std::string& target_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  std::size_t found_ = 0;
  bool done_ = false;
};

}  // namespace

std::size_t json_path_line(const std::string& text, const std::string& path) {
  std::string wanted = path;
  while (true) {
    if (const std::size_t line = PathLocator(text, wanted).find()) return line;
    if (wanted.empty()) return 0;
    // The nearest parent: drop the last ".member" or "[index]".
    const std::size_t cut = wanted.find_last_of(".[");
    wanted = cut == std::string::npos ? "" : wanted.substr(0, cut);
  }
}

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
