/// \file
/// The nearest-candidate search behind "did you mean" (support/Suggest.h).
#include "nnaccel/support/Suggest.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace nnaccel {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

} // namespace

size_t editDistance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1, 0));
  for (size_t i = 0; i <= n; ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= m; ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= n; ++i)
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::optional<std::string> nearestCandidate(std::string_view word,
                                            std::span<const std::string> candidates) {
  const std::string w = lower(word);
  std::optional<std::string> best;
  size_t bestDistance = std::max<size_t>(1, w.size() / 3) + 1;
  for (const std::string& c : candidates) {
    const std::string lc = lower(c);
    if (lc == w)
      return std::nullopt;
    // A prefix of at least three letters ("lenet" for "lenet5") counts as one edit.
    const size_t d = w.size() >= 3 && lc.starts_with(w) ? 1 : editDistance(w, lc);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return best;
}

std::string didYouMean(std::string_view word, std::span<const std::string> candidates) {
  const std::optional<std::string> n = nearestCandidate(word, candidates);
  return n ? " (did you mean '" + *n + "'?)" : "";
}

} // namespace nnaccel
