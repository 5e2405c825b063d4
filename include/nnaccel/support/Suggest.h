/// \file
/// "Did you mean": the candidate nearest to a mistyped word, for the one-line errors about
/// unknown commands, models, engines and presets (issue 23). Distance is Damerau-Levenshtein
/// (insertions, deletions, substitutions and swaps of neighbours), case-insensitive.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace nnaccel {

/// Edits between \p a and \p b (Damerau-Levenshtein, optimal string alignment).
size_t editDistance(std::string_view a, std::string_view b);

/// The candidate nearest to \p word when it is close enough to be a typo (at most a third of
/// the word's length, at least 1 edit, or \p word is a prefix of it), first on ties; nullopt
/// otherwise or when \p word is a candidate.
std::optional<std::string> nearestCandidate(std::string_view word,
                                            std::span<const std::string> candidates);

/// " (did you mean 'X'?)" for nearestCandidate, or "" when there is none.
std::string didYouMean(std::string_view word, std::span<const std::string> candidates);

} // namespace nnaccel
