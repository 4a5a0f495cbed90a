#include "components_command.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "clustersim/component.h"
#include "clustersim/config.h"
#include "clustersim/generator.h"
#include "clustersim/options.h"
#include "clustersim/workload.h"

namespace clustersim::app {

namespace {

// The capabilities a descriptor has, by name, in a fixed order (relative_cost apart).
std::vector<std::string> capability_names(const ComponentCapabilities& caps) {
  std::vector<std::string> names;
  if (caps.preempts) names.emplace_back("preempts");
  if (caps.own_decider) names.emplace_back("own_decider");
  if (caps.needs_built_in_decider) names.emplace_back("needs_built_in_decider");
  if (caps.small_jobs) names.emplace_back("small_jobs");
  if (caps.consolidates) names.emplace_back("consolidates");
  if (caps.random) names.emplace_back("random");
  if (caps.gpu_shares) names.emplace_back("gpu_shares");
  if (caps.llm_jobs) names.emplace_back("llm_jobs");
  if (caps.serving) names.emplace_back("serving");
  if (caps.steady_state) names.emplace_back("steady_state");
  if (caps.plans_queries) names.emplace_back("plans_queries");
  if (caps.looks_ahead) names.emplace_back("looks_ahead");
  return names;
}

// Its config keys: those of every run config (the readers' too) with one of its tags.
std::vector<std::string> keys_of(const ComponentDescriptor& d) {
  std::vector<std::string> names;
  for (const KeyDecl& key : config_keys().keys())
    if (std::find(d.key_components.begin(), d.key_components.end(), key.component) !=
        d.key_components.end())
      names.push_back(key.name);
  return names;
}

// Every kind, each with its components: the core's, then the trace readers' and the
// generators'.
std::vector<std::pair<ComponentKind, std::vector<const ComponentDescriptor*>>> every_component() {
  std::vector<std::pair<ComponentKind, std::vector<const ComponentDescriptor*>>> out;
  for (ComponentKind kind : kComponentKinds) out.emplace_back(kind, components(kind));
  for (const auto& [kind, table] :
       {std::pair{ComponentKind::kTraceFormat, &trace_format_components()},
        std::pair{ComponentKind::kGenerator, &generator_components()}}) {
    std::vector<const ComponentDescriptor*> list;
    for (const ComponentDescriptor& d : *table) list.push_back(&d);
    out.emplace_back(kind, std::move(list));
  }
  return out;
}

nlohmann::ordered_json to_json(const ComponentDescriptor& d) {
  nlohmann::ordered_json out;
  out["name"] = d.name;
  out["summary"] = d.summary;
  out["capabilities"] = {{"preempts", d.caps.preempts},
                         {"own_decider", d.caps.own_decider},
                         {"needs_built_in_decider", d.caps.needs_built_in_decider},
                         {"small_jobs", d.caps.small_jobs},
                         {"consolidates", d.caps.consolidates},
                         {"random", d.caps.random},
                         {"gpu_shares", d.caps.gpu_shares},
                         {"llm_jobs", d.caps.llm_jobs},
                         {"serving", d.caps.serving},
                         {"relative_cost", d.caps.relative_cost},
                         {"steady_state", d.caps.steady_state},
                         {"plans_queries", d.caps.plans_queries},
                         {"looks_ahead", d.caps.looks_ahead}};
  out["keys"] = keys_of(d);
  return out;
}

}  // namespace

int components_command(bool json) {
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [kind, list_of_kind] : every_component()) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const ComponentDescriptor* d : list_of_kind) list.push_back(to_json(*d));
      out[std::string(component_kind_name(kind))] = std::move(list);
    }
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  for (const auto& [kind, list_of_kind] : every_component()) {
    std::cout << component_kind_name(kind) << ":\n";
    for (const ComponentDescriptor* d : list_of_kind) {
      std::cout << "  " << d->name << ": " << d->summary << '\n';
      std::string caps;
      for (const std::string& name : capability_names(d->caps))
        caps += (caps.empty() ? "" : ", ") + name;
      if (d->caps.relative_cost != 1.0)
        caps += (caps.empty() ? "" : ", ") +
                ("relative_cost " + nlohmann::json(d->caps.relative_cost).dump());
      std::cout << "    capabilities: " << (caps.empty() ? "-" : caps) << '\n';
      std::string keys;
      for (const std::string& key : keys_of(*d)) keys += (keys.empty() ? "" : ", ") + key;
      std::cout << "    keys: " << (keys.empty() ? "-" : keys) << '\n';
    }
  }
  return 0;
}

}  // namespace clustersim::app
