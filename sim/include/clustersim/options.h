// Config keys, declared once. Every key of a run config (`[cluster] nodes`, `[scheduler]
// lease_s`, ...) is one KeyDecl, written next to the component that owns it (the policy, the
// placement, the mechanism, the generator, ...): its name, type, range or choices, doc, the
// workload kinds it applies to, and an accessor binding it to its field in the options structs
// (SimOptions, NodeGroupSpec, GeneratorOptions, ...). The struct's initialiser is the key's
// default. From these declarations come: parsing a config (types, ranges, choices, unknown and
// misspelt keys, keys that do not apply to the workload kind), validate() of options built in C++,
// `clustersim run --list-keys` and the key tables of README.md.
//
// Adding a key: add its field (with its default) to the options struct, then one declaration in
// the owner's `declare_*_keys` (e.g. `field<SimOptions>(keys, "scheduler.x", [](auto& o) -> auto&
// { return o.scheduler.x; }).range(0, 1).doc("...")`), then regenerate README.md's table
// (scripts/update_key_tables.sh; tests/app/options_test.cc fails until it matches).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace clustersim {

struct SimOptions;
struct NodeGroupSpec;
struct GeneratorOptions;
struct ReaderOptions;
struct ProfileModelOptions;
struct WorkloadSource;

// A key's value as a config holds it, free of TOML: unset, true/false, an integer, a number,
// text, or a list of numbers or of strings.
using OptionValue = std::variant<std::monostate, bool, std::int64_t, double, std::string,
                                 std::vector<double>, std::vector<std::string>>;

enum class KeyType : std::uint8_t {
  kBool,
  kInteger,
  kNumber,
  kString,
  kChoice,  // a string, one of KeyDecl::choices
  kPath,    // a string naming a file or folder, relative to the config file
  kList,    // of numbers or of strings (KeyDecl::item)
  kTable,   // a table or an array of tables, parsed by its own code
};
std::string_view key_type_name(KeyType type);  // "bool", "integer", ...

// What a run simulates: training jobs (simulate()) or serving query DAGs (simulate_serving()).
enum class WorkloadKind : std::uint8_t { kTraining = 1, kDag = 2 };
enum class Applies : std::uint8_t { kTraining = 1, kDag = 2, kBoth = 3 };
inline bool applies_to(Applies applies, WorkloadKind kind) {
  return (static_cast<std::uint8_t>(applies) & static_cast<std::uint8_t>(kind)) != 0;
}

// The options struct a key's accessor reads and writes.
enum class KeyTarget : std::uint8_t {
  kNone,          // no field: parsed by hand-written code (see KeyDecl::custom)
  kSimOptions,    // SimOptions (simulator.h)
  kNodeGroup,     // one NodeGroupSpec of SimOptions::cluster (cluster.h)
  kGenerator,     // GeneratorOptions (generator.h)
  kReader,        // ReaderOptions (workload.h)
  kProfileModel,  // ProfileModelOptions (profile.h)
  kWorkload,      // WorkloadSource (config.h)
};
// A closed range [min, max] of a number or an integer.
struct KeyRange {
  double min = 0.0, max = 0.0;      // numbers
  std::int64_t imin = 0, imax = 0;  // integers
  bool integer = false;
};

struct KeyDecl {
  // From the config's root: "scheduler.lease_s"; keys of each [[cluster.node_group]] table are
  // "cluster.node_group[].gpus_per_node".
  std::string name;
  KeyType type = KeyType::kString;
  KeyType item = KeyType::kNumber;  // kList: kNumber, kInteger or kString
  std::string doc;                  // Markdown
  std::string component;            // who declares it: "scheduler", "policy tiresias", ...
  Applies applies = Applies::kBoth;
  std::vector<std::string> choices;  // kChoice
  std::optional<KeyRange> range;
  // What a value must look like, for type errors ("expected " + this); empty: by type.
  std::string expected;
  // Read only when another key (a full name) has one of `values`, or, with no values, is set;
  // else the key is an error ("only with ..."). `text` describes the condition when set.
  struct Condition {
    std::string key;
    std::vector<std::string> values;
    std::string text;
  };
  std::optional<Condition> when;
  // The error for a workload kind the key does not apply to; empty: the standard one.
  std::string refusal;
  // The default: from a default-constructed struct for a key bound to a field (monostate: none,
  // the key is required or its absence means something). `default_note` replaces it in the docs
  // where the default depends on other keys or the field's initialiser means "unset".
  OptionValue default_value;
  std::string default_note;
  // The range holds for config input; the struct may hold more (a sweep's derived 64-bit seeds).
  bool input_only_range = false;
  // Parsed by hand-written code in io/config_tables.cc (tables, files to load): the declaration
  // still gives its docs, its workload kinds and its condition, and makes it a known key.
  bool custom = false;
  // A rule beyond type and range on the value: a message, or "" when the value is fine.
  std::function<std::string(const OptionValue&)> check;
  // A rule on the whole target once its table is read (e.g. a key that needs another's value):
  // a message, or "".
  std::function<std::string(const void* target)> check_target;
  // The accessor: reads and writes the key's field in a target of type `target`.
  KeyTarget target = KeyTarget::kNone;
  std::function<OptionValue(const void* target)> get;
  std::function<void(void* target, const OptionValue& value)> set;

  std::string_view section() const;  // "scheduler"; "cluster.node_group[]"
  std::string_view key() const;      // "lease_s"
  bool bound() const { return static_cast<bool>(set); }
};

// The declarations, in the order of the config's tables and, within one, of the reading.
class KeyRegistry {
 public:
  KeyDecl& add(KeyDecl decl);
  const std::vector<KeyDecl>& keys() const { return keys_; }
  const KeyDecl* find(std::string_view name) const;
  std::vector<const KeyDecl*> in_section(std::string_view section) const;
  std::vector<std::string> sections() const;  // in order, each once
  std::vector<std::string> tables() const;    // top-level tables: "cluster", "workload", ...

 private:
  std::vector<KeyDecl> keys_;
};

// The keys SimOptions holds (cluster, scheduler, serving, mechanisms, throughput, metrics,
// debug), from the simulator library alone.
const KeyRegistry& simulator_keys();
// Every key of a run config: simulator_keys() and the workload's (readers, generators).
const KeyRegistry& config_keys();

// Checks options built in C++ against the declared ranges and rules of the keys that apply to
// `kind`, as the config parser checks a config; throws std::invalid_argument("KEY: MESSAGE").
// Names of components (policy, placement, ...) are left to their factories.
void validate(const SimOptions& options, WorkloadKind kind = WorkloadKind::kTraining);

// What is wrong with `value` for `key`, as config errors say it: out of range ("must be in [0,
// 1e+12], got -1"), not one of the choices, or the key's own rule; "" when it is fine.
std::string value_problem(const KeyDecl& key, const OptionValue& value);

// A value as a config writes it: true, 300, 0.05, "fifo", [3600, 36000]; "—" when unset.
std::string format_value(const OptionValue& value);
// A number as the range errors print it (std::ostream's default: 1e+12, 0.999999).
std::string format_bound(double value);
std::string type_text(const KeyDecl& key);  // "number in [0, 1e+12]", "one of: fifo, sjf"
std::string default_text(const KeyDecl& key);
// "only with generator = \"synergy\"" (empty without a condition).
std::string condition_text(const KeyDecl& key);
// The error for a key set on a workload kind it does not apply to.
std::string refusal_text(const KeyDecl& key, WorkloadKind kind);

// `clustersim run --list-keys`: every key with its type, default, workloads and doc.
std::string keys_text(const KeyRegistry& keys);
// The same as Markdown tables, one per config table: README.md's between its markers.
std::string keys_markdown(const KeyRegistry& keys);

}  // namespace clustersim
