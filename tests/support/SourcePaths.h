/// \file
/// sourceDir(): the source tree the tests read their data from (configs, corpora, manifests).
/// It is defined in one generated file (cmake/NnaccelModule.cmake, nnaccel_test_paths) rather
/// than as a compile definition: a path on every test's compile line would make each object
/// differ per clone location, so a clone at a new path could reuse nothing from ccache.
#pragma once

#include <filesystem>

namespace nnaccel::test {

/// The absolute path of the nnaccel source tree this build was configured from.
std::filesystem::path sourceDir();

} // namespace nnaccel::test
