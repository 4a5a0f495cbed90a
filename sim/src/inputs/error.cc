#include "clustersim/error.h"

#include <sstream>

namespace clustersim {

namespace {
std::string format_input_error(const std::string& file, std::size_t line, const std::string& field,
                               const std::string& message) {
  std::ostringstream text;
  text << file;
  if (line > 0) text << ':' << line;
  text << ": ";
  if (!field.empty()) text << "field '" << field << "': ";
  text << message;
  return text.str();
}
}  // namespace

InputError::InputError(std::string file, std::size_t line, std::string field, std::string message)
    : std::runtime_error(format_input_error(file, line, field, message)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      message_(std::move(message)) {}

}  // namespace clustersim
