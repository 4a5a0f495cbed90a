// What kind of known input file a text looks like, for a hint when a file is given to the wrong
// reader (a runtime-distribution CSV as a Philly job log: "invalid JSON" alone does not say why).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace clustersim::workload_internal {

struct InputKind {
  std::string what;    // "a native job CSV"
  std::string use;     // "workload.format = \"csv\""
  std::string format;  // the trace format that reads it ("" when it is not a trace)
};

// The kind of file `head` (the first bytes of a file) looks like, from its first line that is
// not blank or a comment: JSON by its keys, CSV by its header's column names, Gavel's trace by
// its tab-separated fields. nullopt when it looks like none of them.
std::optional<InputKind> sniff_input_kind(std::string_view head);

// " (this looks like WHAT: use USE)" when `head` looks like a known kind other than a trace of
// `format`, else "".
std::string input_kind_hint(std::string_view head, std::string_view format);

}  // namespace clustersim::workload_internal
