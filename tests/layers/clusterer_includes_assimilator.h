// A deliberate folder circle for the layer check's test (never compiled): checked as if it
// were daemons/clusterer/lib/circle.h. The assimilator already uses the clusterer's sizing
// inputs, so the clusterer including the assimilator closes a circle within one layer.
#pragma once

#include "daemons/assimilator/lib/assimilator_pass.h"
