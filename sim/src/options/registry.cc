// The key registry (options.h): collecting the modules' declarations, validate(), and the
// listings (--list-keys, README.md's tables).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "clustersim/error.h"
#include "clustersim/options.h"
#include "clustersim/simulator.h"
#include "options/declare.h"

namespace clustersim {

namespace {

// Tables in config order; a section not listed sorts last.
constexpr std::string_view kSectionOrder[] = {"cluster",    "cluster.node_group[]",
                                              "workload",   "scheduler",
                                              "throughput", "mechanisms",
                                              "sharing",    "fabric",
                                              "power",      "supply",
                                              "serving",    "metrics",
                                              "debug"};

std::size_t section_rank(std::string_view section) {
  for (std::size_t i = 0; i < std::size(kSectionOrder); ++i)
    if (kSectionOrder[i] == section) return i;
  return std::size(kSectionOrder);
}

// The shortest text that reads back as `value` (300, 0.05, 1e+12).
std::string shortest(double value) {
  char text[64];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

std::string join(const std::vector<std::string>& items, std::string_view separator,
                 std::string_view quote = "") {
  std::string text;
  for (const std::string& item : items) {
    if (!text.empty()) text += separator;
    text += quote;
    text += item;
    text += quote;
  }
  return text;
}

std::string range_text(const KeyRange& range) {
  if (range.integer)
    return "[" + std::to_string(range.imin) + ", " + std::to_string(range.imax) + "]";
  return "[" + format_bound(range.min) + ", " + format_bound(range.max) + "]";
}

// "only with generator = "synergy"" / "only with a trace"; `code` wraps the condition in
// backticks (Markdown).
std::string condition(const KeyDecl& key, bool code) {
  if (!key.when) return "";
  const KeyDecl::Condition& when = *key.when;
  if (!when.text.empty()) return "only with " + when.text;
  // Within the key's own table, the condition names the other key bare.
  std::string other = when.key;
  const std::string prefix = std::string(key.section()) + ".";
  if (other.rfind(prefix, 0) == 0) other = other.substr(prefix.size());
  if (when.values.empty()) return "only with " + (code ? "`" + other + "`" : other) + " set";
  std::string values;
  for (std::size_t i = 0; i < when.values.size(); ++i) {
    if (i > 0) values += i + 1 == when.values.size() ? " or " : ", ";
    values += "\"" + when.values[i] + "\"";
  }
  const std::string text = other + " = " + values;
  return "only with " + (code ? "`" + text + "`" : text);
}

std::string applies_name(Applies applies) {
  switch (applies) {
    case Applies::kTraining:
      return "training";
    case Applies::kDag:
      return "DAG";
    case Applies::kBoth:
      return "both";
  }
  return "?";
}

// Derives the keys of [[cluster.node_group]] from [cluster]'s keys of one group: a group
// inherits [cluster]'s value of each.
void add_node_group_keys(KeyRegistry& keys) {
  std::vector<KeyDecl> derived;
  for (const KeyDecl& key : keys.keys()) {
    if (key.section() != "cluster" || key.target != KeyTarget::kNodeGroup || key.key() == "nodes")
      continue;
    KeyDecl group = key;
    group.name = "cluster.node_group[]." + std::string(key.key());
    group.default_note = "`[cluster]`'s";
    group.doc = "This group's `" + std::string(key.key()) + "` (see `[cluster]`).";
    derived.push_back(std::move(group));
  }
  for (KeyDecl& key : derived) keys.add(std::move(key));
}

}  // namespace

std::string_view key_type_name(KeyType type) {
  switch (type) {
    case KeyType::kBool:
      return "bool";
    case KeyType::kInteger:
      return "integer";
    case KeyType::kNumber:
      return "number";
    case KeyType::kString:
      return "string";
    case KeyType::kChoice:
      return "choice";
    case KeyType::kPath:
      return "path";
    case KeyType::kList:
      return "list";
    case KeyType::kTable:
      return "table";
  }
  return "?";
}

std::string_view KeyDecl::section() const {
  const auto dot = std::string_view(name).rfind('.');
  return dot == std::string_view::npos ? std::string_view() : std::string_view(name).substr(0, dot);
}

std::string_view KeyDecl::key() const {
  const auto dot = std::string_view(name).rfind('.');
  return dot == std::string_view::npos ? std::string_view(name)
                                       : std::string_view(name).substr(dot + 1);
}

KeyDecl& KeyRegistry::add(KeyDecl decl) {
  if (find(decl.name)) throw std::logic_error("config key declared twice: " + decl.name);
  keys_.push_back(std::move(decl));
  return keys_.back();
}

const KeyDecl* KeyRegistry::find(std::string_view name) const {
  for (const KeyDecl& key : keys_)
    if (key.name == name) return &key;
  return nullptr;
}

std::vector<const KeyDecl*> KeyRegistry::in_section(std::string_view section) const {
  std::vector<const KeyDecl*> found;
  for (const KeyDecl& key : keys_)
    if (key.section() == section) found.push_back(&key);
  return found;
}

std::vector<std::string> KeyRegistry::sections() const {
  std::vector<std::string> names;
  for (const KeyDecl& key : keys_) {
    const std::string section(key.section());
    if (std::find(names.begin(), names.end(), section) == names.end()) names.push_back(section);
  }
  return names;
}

std::vector<std::string> KeyRegistry::tables() const {
  std::vector<std::string> names;
  for (const std::string& section : sections()) {
    const std::string table = section.substr(0, section.find('.'));
    if (std::find(names.begin(), names.end(), table) == names.end()) names.push_back(table);
  }
  return names;
}

namespace options {

KeyBuilder custom(KeyRegistry& keys, std::string name, KeyType type) {
  KeyDecl decl;
  decl.name = std::move(name);
  decl.type = type;
  decl.custom = true;
  return KeyBuilder(keys.add(std::move(decl)));
}

// Sorts declarations into config table order, keeping each table's declaration order.
void sort_by_table(std::vector<KeyDecl>& keys) {
  std::stable_sort(keys.begin(), keys.end(), [](const KeyDecl& a, const KeyDecl& b) {
    return section_rank(a.section()) < section_rank(b.section());
  });
}

}  // namespace options

const KeyRegistry& simulator_keys() {
  static const KeyRegistry registry = [] {
    KeyRegistry keys;
    options::declare_cluster_keys(keys);
    options::declare_policy_keys(keys);
    options::declare_placement_keys(keys);
    options::declare_allocation_keys(keys);
    options::declare_scheduler_keys(keys);
    options::declare_metrics_keys(keys);
    options::declare_serving_keys(keys);
    options::declare_placement_model_keys(keys);
    options::declare_profile_model_keys(keys);
    options::declare_table_model_keys(keys);
    options::declare_type_choice_keys(keys);
    options::declare_mechanism_keys(keys);
    options::declare_sharing_keys(keys);
    options::declare_fabric_keys(keys);
    options::declare_power_keys(keys);
    add_node_group_keys(keys);
    std::vector<KeyDecl> sorted = keys.keys();
    options::sort_by_table(sorted);
    KeyRegistry ordered;
    for (KeyDecl& key : sorted) ordered.add(std::move(key));
    return ordered;
  }();
  return registry;
}

std::string format_bound(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string format_value(const OptionValue& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "—"; }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return shortest(v); }
    std::string operator()(const std::string& v) const { return "\"" + v + "\""; }
    std::string operator()(const std::vector<double>& v) const {
      std::vector<std::string> items;
      for (double item : v) items.push_back(shortest(item));
      return "[" + join(items, ", ") + "]";
    }
    std::string operator()(const std::vector<std::string>& v) const {
      return "[" + join(v, ", ", "\"") + "]";
    }
  };
  return std::visit(Visitor{}, value);
}

std::string type_text(const KeyDecl& key) {
  switch (key.type) {
    case KeyType::kInteger:
    case KeyType::kNumber: {
      std::string text(key_type_name(key.type));
      if (key.range) text += " in " + range_text(*key.range);
      return text;
    }
    case KeyType::kChoice:
      return "one of: " + join(key.choices, ", ");
    case KeyType::kList:
      return key.item == KeyType::kString    ? "list of strings"
             : key.item == KeyType::kInteger ? "list of integers"
                                             : "list of numbers";
    default:
      return std::string(key_type_name(key.type));
  }
}

std::string default_text(const KeyDecl& key) {
  if (!key.default_note.empty()) return key.default_note;
  return format_value(key.default_value);
}

std::string condition_text(const KeyDecl& key) { return condition(key, false); }

std::string refusal_text(const KeyDecl& key, WorkloadKind kind) {
  if (!key.refusal.empty()) return key.refusal;
  if (kind == WorkloadKind::kTraining)
    return "only for DAG workloads (format = \"dag\" or generator = \"query_dag\")";
  return "only for training workloads (a DAG workload runs on the serving engine, which does "
         "not use it)";
}

std::string value_problem(const KeyDecl& key, const OptionValue& value) {
  if (key.range) {
    const KeyRange& range = *key.range;
    if (const auto* integer = std::get_if<std::int64_t>(&value)) {
      if (*integer < range.imin || *integer > range.imax)
        return "must be in " + range_text(range) + ", got " + std::to_string(*integer);
    } else if (const auto* number = std::get_if<double>(&value)) {
      if (!std::isfinite(*number) || *number < range.min || *number > range.max) {
        std::ostringstream message;
        message << "must be in " << range_text(range) << ", got " << *number;
        return message.str();
      }
    }
  }
  if (key.type == KeyType::kChoice) {
    if (const auto* text = std::get_if<std::string>(&value)) {
      if (std::find(key.choices.begin(), key.choices.end(), *text) == key.choices.end())
        return "unknown value '" + excerpt(*text) +
               "' (expected one of: " + join(key.choices, ", ") + ")";
    }
  }
  if (key.check) return key.check(value);
  return "";
}

void validate(const SimOptions& options, WorkloadKind kind) {
  // Allocates nothing unless something is wrong (the key's field name is built then): the
  // engine may call it for every run.
  const auto check = [](const KeyDecl& key, const void* target, const auto& field) {
    if (key.get && !key.input_only_range && key.type != KeyType::kChoice) {
      const OptionValue value = key.get(target);
      // The struct's initialiser is the default: valid, or the value meaning "unset".
      if (value != key.default_value) {
        const std::string problem = value_problem(key, value);
        if (!problem.empty()) throw std::invalid_argument(field() + ": " + problem);
      }
    }
    if (key.check_target) {
      const std::string problem = key.check_target(target);
      if (!problem.empty()) throw std::invalid_argument(field() + ": " + problem);
    }
  };
  for (const KeyDecl& key : simulator_keys().keys()) {
    if (!applies_to(key.applies, kind)) continue;
    if (key.target == KeyTarget::kSimOptions) {
      check(key, &options, [&] { return key.name; });
    } else if (key.target == KeyTarget::kNodeGroup && key.section() == "cluster.node_group[]") {
      const auto& groups = options.cluster.groups;
      for (std::size_t i = 0; i < groups.size(); ++i)
        check(key, &groups[i], [&] {
          return "cluster.groups[" + std::to_string(i) + "]." + std::string(key.key());
        });
    }
  }
}

std::string keys_text(const KeyRegistry& keys) {
  std::string text;
  for (const KeyDecl& key : keys.keys()) {
    text += key.name + "  (" + type_text(key) + "; default " + default_text(key) + "; " +
            (key.applies == Applies::kBoth ? std::string("training and DAG")
                                           : applies_name(key.applies)) +
            " workloads";
    if (key.when) text += "; " + condition(key, false);
    text += ")\n    " + key.doc + "\n";
  }
  return text;
}

std::string keys_markdown(const KeyRegistry& keys) {
  const auto cell = [](std::string text) {
    std::string escaped;
    for (char c : text) {
      if (c == '|') escaped += '\\';
      escaped += c == '\n' ? ' ' : c;
    }
    return escaped;
  };
  std::string text;
  for (const std::string& section : keys.sections()) {
    const std::string title =
        section == "cluster.node_group[]" ? "[[cluster.node_group]]" : "[" + section + "]";
    if (!text.empty()) text += "\n";
    text += "**`" + title + "`**\n\n";
    text += "| key | type | default | workloads | meaning |\n|---|---|---|---|---|\n";
    for (const KeyDecl* key : keys.in_section(section)) {
      std::string type = type_text(*key);
      if (key->type == KeyType::kChoice) type = "one of " + join(key->choices, ", ", "`");
      std::string fallback = default_text(*key);
      if (key->default_note.empty() && fallback != "—") fallback = "`" + fallback + "`";
      std::string meaning = key->doc;
      if (key->when) {
        std::string when = condition(*key, true);
        when[0] = 'O';
        meaning += (meaning.empty() ? "" : " ") + when + ".";
      }
      text += "| `" + std::string(key->key()) + "` | " + cell(type) + " | " + cell(fallback) +
              " | " + applies_name(key->applies) + " | " + cell(meaning) + " |\n";
    }
  }
  return text;
}

}  // namespace clustersim
