// Initial placement (seed: "Initial worker assignment"): source operands are spread over
// the active hosts by depth-first walks of the undirected operand graph. A walk starts at
// the first unassigned source for the next host, gives that host every unassigned source
// it reaches, and stops once it has visited the average number of operands per host — so
// sources that feed the same successors land together (locality) while every host gets
// about the same share (balance). Sources no walk reached go to the least-loaded host.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "lib/operand/chunk_graph.h"

namespace tharsis::operand {

// Source operand id -> host id (one of `hosts`, in their given order). Empty when there
// are no hosts.
std::map<int64_t, int64_t> place_sources(const ChunkGraph& graph, const std::vector<int64_t>& hosts);

}  // namespace tharsis::operand
