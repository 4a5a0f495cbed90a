// A tiny "--key value" / "--flag" command-line parser for the benchmarks (host-only).
#pragma once

#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ckbench {

class Args {
 public:
  // `flags` take no value; every other --key takes one. Throws std::invalid_argument on
  // unknown keys (when `known` is non-empty) or a missing value.
  Args(int argc, char** argv, const std::set<std::string>& known,
       const std::set<std::string>& flags = {}) {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a.rfind("--", 0) != 0) throw std::invalid_argument("unexpected argument '" + a + "'");
      std::string key = a.substr(2), value;
      if (auto eq = key.find('='); eq != std::string::npos) {
        value = key.substr(eq + 1);
        key = key.substr(0, eq);
      } else if (flags.count(key) == 0 && key != "help") {
        if (i + 1 >= argc) throw std::invalid_argument("--" + key + " needs a value");
        value = argv[++i];
      } else {
        value = "1";
      }
      if (key != "help" && !known.empty() && known.count(key) == 0 && flags.count(key) == 0) {
        throw std::invalid_argument("unknown option --" + key);
      }
      values_[key] = value;
    }
  }
  bool has(const std::string& key) const { return values_.count(key) > 0; }
  std::string str(const std::string& key, const std::string& fallback) const {
    auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second;
  }
  double num(const std::string& key, double fallback) const {
    auto it = values_.find(key);
    if (it == values_.end()) return fallback;
    char* end = nullptr;
    const double v = std::strtod(it->second.c_str(), &end);
    if (end == it->second.c_str() || *end != '\0') {
      throw std::invalid_argument("--" + key + ": not a number: '" + it->second + "'");
    }
    return v;
  }
  // Comma-separated list of numbers.
  std::vector<double> nums(const std::string& key, const std::vector<double>& fallback) const {
    auto it = values_.find(key);
    if (it == values_.end()) return fallback;
    std::vector<double> out;
    std::stringstream ss(it->second);
    std::string item;
    while (std::getline(ss, item, ',')) {
      char* end = nullptr;
      const double v = std::strtod(item.c_str(), &end);
      if (item.empty() || *end != '\0') {
        throw std::invalid_argument("--" + key + ": not a number list: '" + it->second + "'");
      }
      out.push_back(v);
    }
    return out;
  }

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace ckbench
