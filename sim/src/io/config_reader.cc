// Typo detection and the small helpers of the config reader (io/internal/config_reader.h).
#include "io/internal/config_reader.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/error.h"

namespace clustersim::io_internal {

namespace {

// Optimal string alignment distance (Levenshtein plus transpositions), for typo suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

// True when `written` looks like a typo of the key `known`: another case, '-' for '_', or one
// or two letters off (one for short keys).
bool is_misspelling(std::string_view written, std::string_view known) {
  if (written.size() > 64) return false;
  std::string a(written), b(known);
  for (std::string* text : {&a, &b}) {
    for (char& c : *text) c = c == '-' ? '_' : static_cast<char>(std::tolower(c));
  }
  if (a == b) return true;
  return edit_distance(a, b) <= (b.size() >= 5 ? 2u : 1u);
}

const toml::table* subtable(const toml::table& root, const std::string& name,
                            const std::string& source) {
  const toml::node* node = root.get(name);
  if (!node) return nullptr;
  if (!node->is_table())
    throw InputError(source, node->source().begin.line, name, "expected a table");
  return node->as_table();
}

std::string resolve_path(const std::string& path, const std::string& base_dir) {
  std::filesystem::path p(path);
  if (p.is_absolute() || base_dir.empty()) return path;
  return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

}  // namespace clustersim::io_internal
