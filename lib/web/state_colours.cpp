// Colours of operand states (see state_colours.h).
#include "lib/web/state_colours.h"

namespace tharsis {

std::string_view operand_state_colour(OperandState state) {
  // Distinct hues that stay apart for the common forms of colour blindness.
  switch (state) {
    case OperandState::Unscheduled:
      return "#d0d4da";
    case OperandState::Ready:
      return "#f2c14e";
    case OperandState::Running:
      return "#3a86ff";
    case OperandState::Finished:
      return "#2a9d5b";
    case OperandState::Freed:
      return "#95d5b2";
    case OperandState::Fatal:
      return "#d62828";
    case OperandState::Cancelling:
      return "#9d4edd";
    case OperandState::Cancelled:
      return "#6c757d";
  }
  return "#000000";
}

}  // namespace tharsis
