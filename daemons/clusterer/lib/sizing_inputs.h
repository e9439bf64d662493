// Reads what the cluster-size rule needs for one app from the database and the project's
// config: the policy and k0, n tasks left, r active hosts (an RPC within the last
// <cluster_active_host_minutes>), the estimator's window of settled jobs and the priors.
// Used by the clusterer (to size new jobs) and by the settle step (for failure_stat).
#pragma once

#include <cstdint>

#include "daemons/clusterer/clusterer_rules.h"
#include "db/database.h"
#include "lib/config/project_config.h"

namespace tharsis {

SizingInputs load_sizing_inputs(Database& db, const ProjectConfig& config, int64_t appid, int64_t now);

// The estimator settings the project config implies (window W; prior α = β = 0, the
// failure-blind start, worth a few observations so early noise does not swing k).
EstimatorConfig estimator_config(const ProjectConfig& config);

}  // namespace tharsis
