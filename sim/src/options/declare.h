// Declaring config keys (options.h): one call per key, next to the component that owns it.
//   field<SimOptions>(keys, "scheduler.lease_s", [](auto& o) -> auto& { return o.lease_s; })
//       .range(0, 1e12)
//       .doc("Period of preemption rounds ...");
// binds the key to its field: the field's type gives the key's, a default-constructed SimOptions
// gives its default. choice<T>() binds a key whose values map to an enum; custom() declares a key
// parsed by hand (tables, files).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "clustersim/options.h"

namespace clustersim {

// The KeyTarget of each options struct.
template <class T>
struct KeyTargetOf;
template <>
struct KeyTargetOf<SimOptions> {
  static constexpr KeyTarget value = KeyTarget::kSimOptions;
};
template <>
struct KeyTargetOf<NodeGroupSpec> {
  static constexpr KeyTarget value = KeyTarget::kNodeGroup;
};
template <>
struct KeyTargetOf<GeneratorOptions> {
  static constexpr KeyTarget value = KeyTarget::kGenerator;
};
template <>
struct KeyTargetOf<ReaderOptions> {
  static constexpr KeyTarget value = KeyTarget::kReader;
};
template <>
struct KeyTargetOf<ProfileModelOptions> {
  static constexpr KeyTarget value = KeyTarget::kProfileModel;
};
template <>
struct KeyTargetOf<WorkloadSource> {
  static constexpr KeyTarget value = KeyTarget::kWorkload;
};

namespace options {

// Fluent setters on a declaration just added to a registry (use it at once: a later add may
// move it).
class KeyBuilder {
 public:
  explicit KeyBuilder(KeyDecl& decl) : decl_(decl) {}

  KeyBuilder& doc(std::string text) {
    decl_.doc = std::move(text);
    return *this;
  }
  KeyBuilder& component(std::string name) {
    decl_.component = std::move(name);
    return *this;
  }
  KeyBuilder& applies(Applies applies) {
    decl_.applies = applies;
    return *this;
  }
  KeyBuilder& training_only() { return applies(Applies::kTraining); }
  KeyBuilder& dag_only() { return applies(Applies::kDag); }
  // A closed range; for an integer key, integer bounds.
  template <class Number>
  KeyBuilder& range(Number min, Number max) {
    KeyRange range;
    range.integer = decl_.type == KeyType::kInteger;
    if constexpr (std::is_integral_v<Number>) {
      range.imin = static_cast<std::int64_t>(min);
      range.imax = static_cast<std::int64_t>(max);
    }
    range.min = static_cast<double>(min);
    range.max = static_cast<double>(max);
    decl_.range = range;
    return *this;
  }
  KeyBuilder& choices(std::vector<std::string> names) {
    decl_.type = KeyType::kChoice;
    decl_.choices = std::move(names);
    return *this;
  }
  // A string naming a file or folder: the config's reader resolves it against the config's
  // folder.
  KeyBuilder& path() {
    decl_.type = KeyType::kPath;
    return *this;
  }
  KeyBuilder& item(KeyType type) {
    decl_.item = type;
    return *this;
  }
  KeyBuilder& expected(std::string text) {
    decl_.expected = std::move(text);
    return *this;
  }
  // Read only when `key` (a full name) has one of `values` (none: when it is set).
  KeyBuilder& when(std::string key, std::vector<std::string> values, std::string text = "") {
    decl_.when = KeyDecl::Condition{std::move(key), std::move(values), std::move(text)};
    return *this;
  }
  KeyBuilder& refusal(std::string text) {
    decl_.refusal = std::move(text);
    return *this;
  }
  KeyBuilder& default_note(std::string text) {
    decl_.default_note = std::move(text);
    return *this;
  }
  KeyBuilder& default_value(OptionValue value) {
    decl_.default_value = std::move(value);
    return *this;
  }
  KeyBuilder& input_only_range() {
    decl_.input_only_range = true;
    return *this;
  }
  template <class F>
  KeyBuilder& check(F rule) {
    decl_.check = std::move(rule);
    return *this;
  }
  // A rule on the target once its table is read: rule(const T&) -> message or "".
  template <class T, class F>
  KeyBuilder& check_target(F rule) {
    decl_.target = KeyTargetOf<T>::value;
    decl_.check_target = [rule = std::move(rule)](const void* target) {
      return rule(*static_cast<const T*>(target));
    };
    return *this;
  }

 private:
  KeyDecl& decl_;
};

namespace detail {

template <class F>
struct FieldTraits;
template <>
struct FieldTraits<bool> {
  static constexpr KeyType type = KeyType::kBool;
  static OptionValue get(bool v) { return v; }
  static bool from(const OptionValue& v) { return std::get<bool>(v); }
};
template <>
struct FieldTraits<double> {
  static constexpr KeyType type = KeyType::kNumber;
  static OptionValue get(double v) { return v; }
  static double from(const OptionValue& v) { return std::get<double>(v); }
};
template <>
struct FieldTraits<std::string> {
  static constexpr KeyType type = KeyType::kString;
  static OptionValue get(const std::string& v) { return v; }
  static std::string from(const OptionValue& v) { return std::get<std::string>(v); }
};
template <>
struct FieldTraits<std::vector<double>> {
  static constexpr KeyType type = KeyType::kList;
  static constexpr KeyType item = KeyType::kNumber;
  static OptionValue get(const std::vector<double>& v) { return v; }
  static std::vector<double> from(const OptionValue& v) { return std::get<std::vector<double>>(v); }
};
template <>
struct FieldTraits<std::vector<std::string>> {
  static constexpr KeyType type = KeyType::kList;
  static constexpr KeyType item = KeyType::kString;
  static OptionValue get(const std::vector<std::string>& v) { return v; }
  static std::vector<std::string> from(const OptionValue& v) {
    return std::get<std::vector<std::string>>(v);
  }
};
template <class F>
requires(std::is_integral_v<F> && !std::is_same_v<F, bool>) struct FieldTraits<F> {
  static constexpr KeyType type = KeyType::kInteger;
  static OptionValue get(F v) { return static_cast<std::int64_t>(v); }
  static F from(const OptionValue& v) { return static_cast<F>(std::get<std::int64_t>(v)); }
};
// An optional field: unset (the default) reads as monostate.
template <class F>
struct FieldTraits<std::optional<F>> {
  static constexpr KeyType type = FieldTraits<F>::type;
  static OptionValue get(const std::optional<F>& v) {
    return v ? FieldTraits<F>::get(*v) : OptionValue{};
  }
  static std::optional<F> from(const OptionValue& v) {
    if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
    return FieldTraits<F>::from(v);
  }
};

}  // namespace detail

// Declares `name` with an accessor pair: get(const T&) -> OptionValue, set(T&, const
// OptionValue&). Its default is get(T{}).
template <class T, class Get, class Set>
KeyBuilder bound(KeyRegistry& keys, std::string name, KeyType type, Get get, Set set) {
  KeyDecl decl;
  decl.name = std::move(name);
  decl.type = type;
  decl.target = KeyTargetOf<T>::value;
  decl.default_value = get(T{});
  decl.get = [get](const void* target) { return get(*static_cast<const T*>(target)); };
  decl.set = [set](void* target, const OptionValue& value) {
    set(*static_cast<T*>(target), value);
  };
  return KeyBuilder(keys.add(std::move(decl)));
}

// Declares `name` bound to the field ref(T&) returns (ref is generic: `[](auto& o) -> auto& {
// return o.field; }`). bool, integers, double, std::string, lists of numbers or strings, and
// optionals of those (unset = monostate).
template <class T, class Ref>
KeyBuilder field(KeyRegistry& keys, std::string name, Ref ref) {
  using F = std::remove_cvref_t<decltype(ref(std::declval<T&>()))>;
  using Traits = detail::FieldTraits<F>;
  KeyBuilder builder = bound<T>(
      keys, std::move(name), Traits::type, [ref](const T& t) { return Traits::get(ref(t)); },
      [ref](T& t, const OptionValue& value) { ref(t) = Traits::from(value); });
  if constexpr (Traits::type == KeyType::kList) builder.item(Traits::item);
  return builder;
}

// Declares `name`, a choice among `names`, bound to a field of any type (an enum, a bool):
// names[i] <-> values[i].
template <class T, class Ref, class V>
KeyBuilder choice(KeyRegistry& keys, std::string name, Ref ref,
                  std::vector<std::pair<std::string, V>> names) {
  std::vector<std::string> choices;
  for (const auto& entry : names) choices.push_back(entry.first);
  KeyBuilder builder = bound<T>(
      keys, std::move(name), KeyType::kChoice,
      [ref, names](const T& t) -> OptionValue {
        for (const auto& [text, value] : names)
          if (ref(t) == value) return text;
        return OptionValue{};
      },
      [ref, names](T& t, const OptionValue& value) {
        for (const auto& [text, v] : names)
          if (std::get<std::string>(value) == text) ref(t) = v;
      });
  builder.choices(std::move(choices));
  return builder;
}

// Declares `name`, parsed by hand in io/config_tables.cc (a table, a file to load, a key other
// keys' reading depends on).
KeyBuilder custom(KeyRegistry& keys, std::string name, KeyType type);

// Sorts declarations into the config's table order, keeping each table's declaration order.
void sort_by_table(std::vector<KeyDecl>& keys);

// Each module declares its keys next to its factories; simulator_keys() calls these in this
// order (the order of reading within a table), config_keys() adds the workload's.
void declare_cluster_keys(KeyRegistry& keys);  // options/core_keys.cc
// `mechanisms.<name>`, owned by "mechanism <component>", for training workloads only.
inline KeyBuilder mechanism_key(KeyRegistry& keys, const std::string& component, std::string name,
                                auto ref) {
  return field<SimOptions>(keys, "mechanisms." + std::move(name), ref)
      .component("mechanism " + component)
      .training_only();
}

void declare_policy_keys(KeyRegistry& keys);           // policies/registry.cc, policies/tiresias.cc
void declare_placement_keys(KeyRegistry& keys);        // placement/registry.cc
void declare_allocation_keys(KeyRegistry& keys);       // allocation/registry.cc
void declare_scheduler_keys(KeyRegistry& keys);        // options/core_keys.cc
void declare_metrics_keys(KeyRegistry& keys);          // options/core_keys.cc ([metrics], [debug])
void declare_serving_keys(KeyRegistry& keys);          // serving/registry.cc
void declare_placement_model_keys(KeyRegistry& keys);  // throughput/placement_throughput_model.cc
void declare_profile_model_keys(KeyRegistry& keys);    // throughput/profile_throughput_model.cc
void declare_table_model_keys(KeyRegistry& keys);      // throughput/table_throughput_model.cc
void declare_type_choice_keys(KeyRegistry& keys);      // decider/placement_stage.cc
void declare_estimator_keys(KeyRegistry& keys);        // policies/estimator.cc
void declare_mechanism_keys(KeyRegistry& keys);        // mechanisms/registry.cc
void declare_sharing_keys(KeyRegistry& keys);          // decider/placement_stage.cc
void declare_fabric_keys(KeyRegistry& keys);           // throughput/llm_rate_model.cc
void declare_power_keys(KeyRegistry& keys);            // metrics/power_keys.cc ([power], [supply])
void declare_tiresias_keys(KeyRegistry& keys);         // policies/tiresias.cc (by the policies')
// The workload's keys, from the I/O library: config_keys() calls these after simulator_keys().
void declare_reader_keys(KeyRegistry& keys);     // workload/read_trace.cc
void declare_gavel_keys(KeyRegistry& keys);      // workload/read_trace.cc (gavel_reader.cc)
void declare_generator_keys(KeyRegistry& keys);  // workload/generator.cc
// workload/philly_patterns.cc (by declare_generator_keys):
void declare_philly_pattern_keys(KeyRegistry& keys);
void declare_synergy_keys(KeyRegistry& keys);    // workload/synergy_generator.cc
void declare_query_dag_keys(KeyRegistry& keys);  // workload/query_dag_generator.cc
void declare_llm_era_keys(KeyRegistry& keys);    // workload/llm_era_generator.cc
void declare_catalog_keys(KeyRegistry& keys);    // io/serving_catalog.cc

}  // namespace options
}  // namespace clustersim
