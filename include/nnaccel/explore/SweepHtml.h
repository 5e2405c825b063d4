/// \file
/// The HTML report of a sweep (`nnaccel sweep ... --html`, also after `sweep merge`): the
/// Pareto front plotted on its first two axes with every other point behind it, cycles and
/// energy per point, and the table of points with their status, front and best marks.
/// Self-contained like every nnaccel report (report/Html.h).
#pragma once

#include "nnaccel/explore/Sweep.h"

#include <string>

namespace nnaccel::explore {

/// \p r must have been ranked (rankPoints) with its spec's objective and axes.
std::string renderSweepHtml(const SweepResult& r);

} // namespace nnaccel::explore
