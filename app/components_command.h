// `clustersim components`: every pluggable component (clustersim/component.h), grouped by kind,
// with its capabilities and config keys.
#pragma once

namespace clustersim::app {

// Prints the list to stdout, as text or (json) one JSON object; returns the exit status.
int components_command(bool json);

}  // namespace clustersim::app
