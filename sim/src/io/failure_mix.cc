#include "clustersim/failure_mix.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <sstream>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "io/internal/headed_csv.h"
#include "workload/internal/text_parsing.h"

namespace clustersim {

namespace {

using workload_internal::trim;

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool has(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// Whether `word` is one of text's words (runs of letters and digits): "NIC", not "mechanic".
bool has_word(const std::string& text, std::string_view word) {
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t end = i;
    while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end]))) ++end;
    if (text.compare(i, end - i, word) == 0 && end - i == word.size()) return true;
    i = end;
  }
  return false;
}

std::optional<FailureCause> cause_named(std::string_view name) {
  for (int c = 0; c < kFailureCauses; ++c)
    if (failure_cause_name(static_cast<FailureCause>(c)) == name)
      return static_cast<FailureCause>(c);
  return std::nullopt;
}

std::string cause_list() {
  std::string out;
  for (int c = 0; c < kFailureCauses; ++c)
    out += (c ? ", " : "") + std::string(failure_cause_name(static_cast<FailureCause>(c)));
  return out;
}

}  // namespace

std::optional<FailureCause> classify_failure_component(std::string_view component_name,
                                                       std::string_view category_name) {
  const std::string component = lower(component_name);
  const std::string category = lower(category_name);
  const std::string both = component + " " + category;
  if (has(both, "maintenance"))
    return has(both, "unplanned") || !has(both, "planned") ? FailureCause::kHost
                                                           : FailureCause::kMaintenance;
  if (has_word(component, "nic")) return FailureCause::kNic;
  if (category == "gpu")
    return has(component, "hbm") || has(component, "sram") || has(component, "memory")
               ? FailureCause::kGpuMemory
               : FailureCause::kGpu;
  if (category == "network" || has(component, "switch") || has(component, "cable"))
    return FailureCause::kSwitch;
  if (category == "power") return FailureCause::kPower;
  if (category == "host") return FailureCause::kHost;
  if (category == "dependency" || category == "software" || category == "unknown")
    return FailureCause::kSoftware;
  return std::nullopt;
}

std::vector<FailureMixRow> read_failure_mix(std::istream& in, const std::string& source_name) {
  enum Column { kComponent, kCategory, kCount, kPercent, kCause };
  constexpr std::array<io_internal::CsvColumn, 5> kColumns = {{{"component"},
                                                               {"category", false},
                                                               {"interruptions"},
                                                               {"percent", false},
                                                               {"cause", false}}};
  std::vector<FailureMixRow> rows;
  io_internal::HeadedCsv csv(in, source_name, kColumns,
                             "component,category,interruptions[,percent][,cause]");
  while (csv.next_row()) {
    FailureMixRow row;
    row.source_line = csv.line();
    row.component = std::string(trim(csv[kComponent]));
    const std::string_view count = trim(csv[kCount]);
    const auto value = workload_internal::parse_finite_double(count);
    if (!value || *value < 0.0)
      csv.fail("interruptions", "expected a count >= 0, got '" + excerpt(std::string(count)) + "'");
    row.count = *value;
    const std::string_view category =
        csv.has(kCategory) ? trim(csv[kCategory]) : std::string_view();
    std::optional<FailureCause> cause;
    if (csv.has(kCause) && !trim(csv[kCause]).empty()) {
      const std::string_view name = trim(csv[kCause]);
      cause = cause_named(name);
      if (!cause)
        csv.fail("cause", "unknown cause '" + excerpt(std::string(name)) + "' (one of " +
                              cause_list() + ")");
    } else {
      cause = classify_failure_component(row.component, category);
      if (!cause)
        csv.fail("component", "no cause fits '" + excerpt(row.component) + "' (category '" +
                                  excerpt(std::string(category)) +
                                  "'): add a cause column (one of " + cause_list() + ")");
    }
    row.cause = *cause;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<FailureMixRow> load_failure_mix(const std::string& path) {
  std::istringstream in(read_input_file(path, "failure mix"));
  return read_failure_mix(in, path);
}

double failure_rate_per_unit_h(double count, FailureUnit unit, const FailureExposure& exposure) {
  const double hours = exposure.days * 24.0;
  const double nodes = exposure.gpus / exposure.gpus_per_node;
  double units = 1.0;  // kJobHour: the one job of the exposure
  switch (unit) {
    case FailureUnit::kGpu:
      units = exposure.gpus;
      break;
    case FailureUnit::kNode:
      units = nodes;
      break;
    case FailureUnit::kRack:
      units = std::ceil(nodes / exposure.nodes_per_rack);
      break;
    case FailureUnit::kLeaf:
      units = std::ceil(nodes / (exposure.nodes_per_leaf > 0.0 ? exposure.nodes_per_leaf
                                                               : exposure.nodes_per_rack));
      break;
    case FailureUnit::kJobHour:
      break;
  }
  return count / (units * hours);
}

void apply_failure_mix(std::span<const FailureMixRow> rows, const FailureExposure& exposure,
                       double repair_h, std::vector<FailureClass>& classes) {
  std::array<double, kFailureCauses> counts{};
  std::array<bool, kFailureCauses> seen{};
  for (const FailureMixRow& row : rows) {
    counts[static_cast<int>(row.cause)] += row.count;
    seen[static_cast<int>(row.cause)] = true;
  }
  for (int c = 0; c < kFailureCauses; ++c) {
    if (!seen[c]) continue;
    const auto cause = static_cast<FailureCause>(c);
    auto it = std::find_if(classes.begin(), classes.end(),
                           [&](const FailureClass& k) { return k.cause == cause; });
    if (it == classes.end()) {
      FailureClass added;
      added.cause = cause;
      added.unit = default_failure_unit(cause);
      added.repair_h = added.unit == FailureUnit::kJobHour ? 0.0 : repair_h;
      classes.push_back(added);
      it = classes.end() - 1;
    }
    if (it->rate_per_h <= 0.0)
      it->rate_per_h = failure_rate_per_unit_h(counts[c], it->unit, exposure);
  }
  std::stable_sort(classes.begin(), classes.end(),
                   [](const FailureClass& a, const FailureClass& b) { return a.cause < b.cause; });
}

}  // namespace clustersim
