// The colours of operand states in every chart and legend of the status pages.
#pragma once

#include <string_view>

#include "db/states.h"

namespace tharsis {

// The fill colour of that state in every chart and legend (CSS colour, #rrggbb).
std::string_view operand_state_colour(OperandState state);

}  // namespace tharsis
