/// \file
/// Ctrl-C as a request to stop at the next layer (`simulate`, `compare`): the first SIGINT sets
/// support/Interrupt.h's flag, which the engines' progress points turn into a report of the
/// layers that finished; a second SIGINT ends the process at once.
#pragma once

#include "nnaccel/support/Interrupt.h"

#include <csignal>

namespace nnaccel::cli {

/// While alive, the first Ctrl-C asks the run to stop at its next progress point
/// (support/Interrupt.h: between layers) so that the layers finished so far are reported; the
/// handler then gives SIGINT back its default action, so a second Ctrl-C ends the process at once.
class StopOnCtrlC {
public:
  StopOnCtrlC() {
    sigaction(SIGINT, nullptr, &previous_);
    installed_ = previous_.sa_handler != SIG_IGN; // a background job keeps ignoring it
    if (!installed_)
      return;
    struct sigaction action {};
    action.sa_handler = &onSigint;
    action.sa_flags = SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
  }
  ~StopOnCtrlC() {
    if (installed_)
      sigaction(SIGINT, &previous_, nullptr);
    clearInterrupt();
  }
  StopOnCtrlC(const StopOnCtrlC&) = delete;
  StopOnCtrlC& operator=(const StopOnCtrlC&) = delete;

private:
  static void onSigint(int) { requestInterrupt(); }
  struct sigaction previous_ {};
  bool installed_ = false;
};

} // namespace nnaccel::cli
