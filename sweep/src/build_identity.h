// Private to the sweep's sources: the build a result file records (software_version,
// git_commit). CMake defines both for the files that include this (sweep/CMakeLists.txt); a
// build without them records "unknown".
#pragma once

#ifndef CLUSTERSIM_VERSION
#define CLUSTERSIM_VERSION "unknown"
#endif
#ifndef CLUSTERSIM_GIT_COMMIT
#define CLUSTERSIM_GIT_COMMIT "unknown"
#endif
