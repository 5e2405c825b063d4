/// \file
/// Placeholder (being written).
