// The TOML side of the config keys' declarations (options.h): a table's keys read with type
// checks and typo detection (TableReader), and one config's parse through the declarations
// (ConfigParse). Private to sim/src/io; config.cc and the table parsers use it.
#pragma once

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/options.h"
#include "clustersim/side_file_cache.h"

namespace clustersim::io_internal {

// True when `written` looks like a typo of the key `known` (config_reader.cc).
bool is_misspelling(std::string_view written, std::string_view known);

// Reads one table's keys with type checks, remembering which keys were used so that the rest
// can be reported as unknown (a typo must never be silently ignored). A key reported missing is
// most often misspelt, so that error names the misspelt key on its own line instead.
class TableReader {
 public:
  TableReader(const toml::table* table, std::string section, const std::string& source)
      : table_(table), section_(std::move(section)), source_(source) {}

  bool has(const std::string& key) const {
    asked_.insert(key);
    return table_ && table_->contains(key);
  }

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    std::size_t line = 0;
    if (table_) {
      if (const toml::node* node = table_->get(key)) {
        line = node->source().begin.line;
      } else {
        reject_misspelt_keys();
        line = table_->source().begin.line;
      }
    }
    throw InputError(source_, line, path(key), message);
  }

  std::string path(const std::string& key) const {
    return section_.empty() ? excerpt(key) : section_ + "." + excerpt(key);
  }

  const toml::node* node(const std::string& key) {
    used_.insert(key);
    asked_.insert(key);
    return table_ ? table_->get(key) : nullptr;
  }

  bool present(const std::string& key) const { return table_ && table_->contains(key); }
  const toml::table* table() const { return table_; }
  // A key the table may hold: a candidate when suggesting what a misspelt key meant.
  void declare(const std::string& key) { asked_.insert(key); }

  // A number in [min, max] (the keys of tables of names: VC quotas, checkpoint sizes).
  double number(const std::string& key, double min, double max) {
    const toml::node* n = node(key);
    double value = 0.0;
    if (auto i = n->value_exact<std::int64_t>())
      value = static_cast<double>(*i);
    else if (auto d = n->value_exact<double>())
      value = *d;
    else
      fail(key, "expected a number");
    if (!std::isfinite(value) || value < min || value > max) {
      std::ostringstream range;
      range << "must be in [" << min << ", " << max << "], got " << value;
      fail(key, range.str());
    }
    return value;
  }

  std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max) {
    auto value = node(key)->value_exact<std::int64_t>();
    if (!value) fail(key, "expected an integer");
    if (*value < min || *value > max)
      fail(key, "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
                    std::to_string(*value));
    return *value;
  }

  // Call once every known key has been read.
  void reject_unknown_keys() const {
    if (!table_) return;
    reject_misspelt_keys();
    for (const auto& [key, value] : *table_)
      if (!used_.count(std::string(key.str())))
        throw InputError(source_, value.source().begin.line, path(std::string(key.str())),
                         "unknown key");
  }

  // Throws for a key of the table that was not asked for but looks like a typo of one that was.
  void reject_misspelt_keys() const {
    if (!table_) return;
    for (const auto& [key, value] : *table_) {
      const std::string name(key.str());
      if (asked_.count(name)) continue;
      for (const std::string& known : asked_) {
        if (is_misspelling(name, known))
          throw InputError(source_, value.source().begin.line, path(name),
                           "unknown key (did you mean '" + known + "'?)");
      }
    }
  }

 private:
  const toml::table* table_;
  std::string section_;
  const std::string& source_;
  std::set<std::string> used_;           // keys read: the others are unknown
  mutable std::set<std::string> asked_;  // keys read or tested with has(): typo candidates
};

// The table `name` of root; null where root has none, an InputError where it is no table.
const toml::table* subtable(const toml::table& root, const std::string& name,
                            const std::string& source);

// A path of the config, relative to the config's folder unless absolute.
std::string resolve_path(const std::string& path, const std::string& base_dir);

// The structs a table's keys are read into (KeyDecl::target); null where the config has none.
struct Targets {
  SimOptions* sim = nullptr;
  NodeGroupSpec* group = nullptr;
  GeneratorOptions* generator = nullptr;
  ReaderOptions* reader = nullptr;
  ProfileModelOptions* profile = nullptr;
  WorkloadSource* workload = nullptr;

  void* of(KeyTarget target) const {
    switch (target) {
      case KeyTarget::kSimOptions:
        return sim;
      case KeyTarget::kNodeGroup:
        return group;
      case KeyTarget::kGenerator:
        return generator;
      case KeyTarget::kReader:
        return reader;
      case KeyTarget::kProfileModel:
        return profile;
      case KeyTarget::kWorkload:
        return workload;
      case KeyTarget::kNone:
        return nullptr;
    }
    return nullptr;
  }
};

// One config's parse through the key declarations (options.h): each key's value is checked
// against its declaration (type, range, choices, rule, condition) and written to its field;
// the values read so far decide the conditions of the others.
class ConfigParse {
 public:
  // `side_files`: where the config's side files come from (a sweep's cache), or nullptr (read
  // from disk).
  ConfigParse(const std::string& source, const std::string& base_dir,
              SideFileCache* side_files = nullptr)
      : source_(source), base_dir_(base_dir), side_files_(side_files) {}

  const KeyRegistry& keys() const { return keys_; }
  const std::string& source() const { return source_; }
  const std::string& base_dir() const { return base_dir_; }
  SideFileCache* side_files() const { return side_files_; }

  const KeyDecl& decl(std::string_view name) const {
    const KeyDecl* key = keys_.find(name);
    if (!key) throw std::logic_error("config key not declared: " + std::string(name));
    return *key;
  }

  // Makes every declared key of `section` a candidate for "did you mean".
  void declare(TableReader& reader, std::string_view section) const {
    for (const KeyDecl* key : keys_.in_section(section)) reader.declare(std::string(key->key()));
  }

  // The checked value of a key of reader's table that is present.
  OptionValue value(TableReader& reader, const KeyDecl& key) {
    const std::string name(key.key());
    const toml::node* node = reader.node(name);
    if (!node) return OptionValue{};
    const std::string unmet = unmet_condition(key);
    if (!unmet.empty()) reader.fail(name, unmet);
    OptionValue value = convert(reader, key, name, *node);
    const std::string problem = value_problem(key, value);
    if (!problem.empty()) reader.fail(name, problem);
    values_[key.name] = value;
    return value;
  }
  std::string text(TableReader& reader, std::string_view name) {
    return std::get<std::string>(value(reader, decl(name)));
  }

  // Reads the declared keys of `section` that reader's table holds into their fields: first the
  // keys other keys' conditions name, then every key's condition (in the table's order), then
  // the values in declaration order. Keys with hand-written parsing (KeyDecl::custom) are only
  // checked for their condition and marked as known.
  void read_section(TableReader& reader, std::string_view section, const Targets& targets) {
    declare(reader, section);
    const std::vector<const KeyDecl*> keys = keys_.in_section(section);
    std::set<const KeyDecl*> done;
    const auto read = [&](const KeyDecl& key) {
      OptionValue value = this->value(reader, key);
      if (key.type == KeyType::kPath) value = resolve_path(std::get<std::string>(value), base_dir_);
      void* target = targets.of(key.target);
      if (!target) throw std::logic_error("config key " + key.name + " has no struct to go to");
      key.set(target, value);
      done.insert(&key);
    };
    for (const KeyDecl* key : keys)
      if (key->bound() && reader.present(std::string(key->key())) && controls_others(*key))
        read(*key);
    if (const toml::table* table = reader.table()) {
      for (const auto& [name, node] : *table) {
        for (const KeyDecl* key : keys) {
          if (key->key() != name.str()) continue;
          const std::string unmet = unmet_condition(*key);
          if (!unmet.empty()) reader.fail(std::string(name.str()), unmet);
        }
      }
    }
    for (const KeyDecl* key : keys) {
      if (!reader.present(std::string(key->key())) || done.count(key)) continue;
      reader.node(std::string(key->key()));  // known, whoever parses it
      if (key->bound()) read(*key);
    }
  }

  // The section's rules on its structs once it is read (KeyDecl::check_target).
  void check_section(TableReader& reader, std::string_view section, const Targets& targets) {
    for (const KeyDecl* key : keys_.in_section(section)) {
      const void* target = targets.of(key->target);
      if (!key->check_target || !target) continue;
      const std::string problem = key->check_target(target);
      if (!problem.empty()) reader.fail(std::string(key->key()), problem);
    }
  }

 private:
  // "" when the key's condition holds, else the error: a key whose condition names a key that is
  // itself out of place is refused for that key's condition (query_dag's burst_factor under
  // generator = "philly": only with generator = "query_dag").
  std::string unmet_condition(const KeyDecl& key) const {
    if (!key.when) return "";
    const KeyDecl* other = keys_.find(key.when->key);
    if (other) {
      std::string unmet = unmet_condition(*other);
      if (!unmet.empty()) return unmet;
    }
    const auto found = values_.find(key.when->key);
    bool holds = false;
    if (key.when->values.empty()) {
      holds = found != values_.end();
    } else {
      const OptionValue& value = found != values_.end() ? found->second
                                 : other                ? other->default_value
                                                        : OptionValue{};
      const auto* text = std::get_if<std::string>(&value);
      holds = text && std::find(key.when->values.begin(), key.when->values.end(), *text) !=
                          key.when->values.end();
    }
    return holds ? "" : condition_text(key);
  }

  bool controls_others(const KeyDecl& key) const {
    for (const KeyDecl& other : keys_.keys())
      if (other.when && other.when->key == key.name) return true;
    return false;
  }

  OptionValue convert(TableReader& reader, const KeyDecl& key, const std::string& name,
                      const toml::node& node) const {
    const auto expected = [&](const char* by_type) {
      reader.fail(name, "expected " + (key.expected.empty() ? std::string(by_type) : key.expected));
    };
    switch (key.type) {
      case KeyType::kBool:
        if (auto value = node.value_exact<bool>()) return *value;
        expected("true or false");
        break;
      case KeyType::kInteger:
        if (auto value = node.value_exact<std::int64_t>()) return *value;
        expected("an integer");
        break;
      case KeyType::kNumber:
        if (auto value = node.value_exact<std::int64_t>()) return static_cast<double>(*value);
        if (auto value = node.value_exact<double>()) return *value;
        expected("a number");
        break;
      case KeyType::kString:
      case KeyType::kChoice:
      case KeyType::kPath:
        if (auto value = node.value_exact<std::string>()) return *value;
        expected("a string");
        break;
      case KeyType::kList: {
        const toml::array* array = node.as_array();
        if (!array)
          expected(key.item == KeyType::kString ? "a list of strings" : "a list of numbers");
        if (key.item == KeyType::kString) {
          std::vector<std::string> items;
          for (const auto& item : *array) {
            auto value = item.value_exact<std::string>();
            if (!value) expected("a list of strings");
            items.push_back(*value);
          }
          return items;
        }
        std::vector<double> items;
        for (const auto& item : *array) {
          auto value = item.value<double>();
          if (!value) expected("a list of numbers");
          items.push_back(*value);
        }
        return items;
      }
      case KeyType::kTable:
        break;
    }
    return OptionValue{};
  }

  const KeyRegistry& keys_ = config_keys();
  const std::string& source_;
  const std::string& base_dir_;
  SideFileCache* side_files_;
  std::map<std::string, OptionValue, std::less<>> values_;  // keys read so far
};

}  // namespace clustersim::io_internal
