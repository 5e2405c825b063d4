/// \file
/// The CLI's names for the report module's text tables and number formatting
/// (nnaccel/report/TextTable.h), used by every command.
#pragma once

#include "nnaccel/report/TextTable.h"

namespace nnaccel::cli {

using report::groupThousands;
using report::humanCount;
using report::numberText;
using report::TextTable;
using report::typeText;

} // namespace nnaccel::cli
