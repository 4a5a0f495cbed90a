// Result reporting: a small JSON value type with a writer (the GPU machine may lack
// nlohmann_json) and an aligned text table, as nvbench prints. Host-only, header-only.
#pragma once

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ckbench {

// A JSON value. Objects keep insertion order (stable, diff-friendly output).
class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;

  Json() : v_(nullptr) {}
  Json(std::nullptr_t) : v_(nullptr) {}
  Json(bool b) : v_(b) {}
  Json(double d) : v_(d) {}
  Json(int i) : v_(static_cast<double>(i)) {}
  Json(long i) : v_(static_cast<double>(i)) {}
  Json(long long i) : v_(static_cast<double>(i)) {}
  Json(unsigned i) : v_(static_cast<double>(i)) {}
  Json(unsigned long i) : v_(static_cast<double>(i)) {}
  Json(unsigned long long i) : v_(static_cast<double>(i)) {}
  Json(const char* s) : v_(std::string(s)) {}
  Json(std::string s) : v_(std::move(s)) {}
  Json(Array a) : v_(std::move(a)) {}
  Json(const std::vector<double>& a) : v_(Array(a.begin(), a.end())) {}

  static Json object() {
    Json j;
    j.v_ = Object{};
    return j;
  }
  static Json array() {
    Json j;
    j.v_ = Array{};
    return j;
  }

  bool is_object() const { return std::holds_alternative<Object>(v_); }
  bool is_array() const { return std::holds_alternative<Array>(v_); }

  // Object member (inserted when absent). Converts a null value into an object.
  Json& operator[](const std::string& key) {
    if (std::holds_alternative<std::nullptr_t>(v_)) v_ = Object{};
    auto* obj = std::get_if<Object>(&v_);
    if (obj == nullptr) throw std::logic_error("Json: not an object");
    for (auto& [k, v] : *obj) {
      if (k == key) return v;
    }
    obj->emplace_back(key, Json());
    return obj->back().second;
  }
  // Appends to an array (converts a null value into an array).
  Json& push_back(Json value) {
    if (std::holds_alternative<std::nullptr_t>(v_)) v_ = Array{};
    auto* arr = std::get_if<Array>(&v_);
    if (arr == nullptr) throw std::logic_error("Json: not an array");
    arr->push_back(std::move(value));
    return arr->back();
  }

  // Compact (indent < 0) or indented text. Arrays of scalars stay on one line.
  std::string dump(int indent = 2) const {
    std::string out;
    write(out, indent, 0);
    return out;
  }

  static std::string escape(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
          } else {
            out += static_cast<char>(c);
          }
      }
    }
    return out + "\"";
  }

  static std::string number(double d) {
    if (!std::isfinite(d)) return "null";  // JSON has no inf/nan
    if (d == std::floor(d) && std::fabs(d) < 1e15) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.0f", d);
      return buf;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", d);
    return buf;
  }

 private:
  bool is_scalar() const { return !is_object() && !is_array(); }

  void write(std::string& out, int indent, int depth) const {
    const std::string pad =
        indent >= 0 ? std::string(static_cast<std::size_t>(indent * (depth + 1)), ' ') : "";
    const std::string pad_end =
        indent >= 0 ? std::string(static_cast<std::size_t>(indent * depth), ' ') : "";
    const char* nl = indent >= 0 ? "\n" : "";
    if (std::holds_alternative<std::nullptr_t>(v_)) {
      out += "null";
    } else if (const bool* b = std::get_if<bool>(&v_)) {
      out += *b ? "true" : "false";
    } else if (const double* d = std::get_if<double>(&v_)) {
      out += number(*d);
    } else if (const std::string* s = std::get_if<std::string>(&v_)) {
      out += escape(*s);
    } else if (const Array* a = std::get_if<Array>(&v_)) {
      bool flat = true;
      for (const Json& e : *a) flat = flat && e.is_scalar();
      if (a->empty()) {
        out += "[]";
      } else if (flat || indent < 0) {
        out += "[";
        for (std::size_t i = 0; i < a->size(); ++i) {
          if (i > 0) out += indent >= 0 ? ", " : ",";
          (*a)[i].write(out, indent, depth + 1);
        }
        out += "]";
      } else {
        out += std::string("[") + nl;
        for (std::size_t i = 0; i < a->size(); ++i) {
          out += pad;
          (*a)[i].write(out, indent, depth + 1);
          out += i + 1 < a->size() ? std::string(",") + nl : std::string(nl);
        }
        out += pad_end + "]";
      }
    } else if (const Object* o = std::get_if<Object>(&v_)) {
      if (o->empty()) {
        out += "{}";
        return;
      }
      out += std::string("{") + nl;
      for (std::size_t i = 0; i < o->size(); ++i) {
        out += pad + escape((*o)[i].first) + (indent >= 0 ? ": " : ":");
        (*o)[i].second.write(out, indent, depth + 1);
        out += i + 1 < o->size() ? std::string(",") + nl : std::string(nl);
      }
      out += pad_end + "}";
    }
  }

  std::variant<std::nullptr_t, bool, double, std::string, Array, Object> v_;
};

inline void write_json_file(const std::string& path, const Json& j) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error("error writing " + path);
}

// An aligned text table: columns sized to their widest cell, numbers right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) {
    row.resize(header_.size());
    rows_.push_back(std::move(row));
  }
  std::string str() const {
    std::vector<std::size_t> width(header_.size());
    for (std::size_t c = 0; c < header_.size(); ++c) {
      width[c] = header_[c].size();
      for (const auto& r : rows_) width[c] = std::max(width[c], r[c].size());
    }
    std::ostringstream out;
    auto line = [&](const std::vector<std::string>& cells) {
      out << "|";
      for (std::size_t c = 0; c < cells.size(); ++c) {
        out << " " << std::string(width[c] - cells[c].size(), ' ') << cells[c] << " |";
      }
      out << "\n";
    };
    line(header_);
    out << "|";
    for (std::size_t c = 0; c < header_.size(); ++c) out << std::string(width[c] + 2, '-') << "|";
    out << "\n";
    for (const auto& r : rows_) line(r);
    return out.str();
  }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// "%.*f" / "%.*g" formatting helpers for table cells.
inline std::string fmt(double v, int precision = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}
inline std::string fmt_pct(double fraction, int precision = 2) {
  return fmt(fraction * 100.0, precision) + "%";
}

}  // namespace ckbench
