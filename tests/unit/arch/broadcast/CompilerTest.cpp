/// \file
/// Placeholder.
#include <gtest/gtest.h>
