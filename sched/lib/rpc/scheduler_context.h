// What every step of a scheduler RPC may use of the process: the project's configuration,
// the keys, the request limits, and the app version cache and queue-head memory a FastCGI
// process keeps.
#pragma once

#include <string>

#include "lib/config/project_config.h"
#include "lib/crypto/rsa_key.h"
#include "lib/protocol/protocol_limits.h"
#include "sched/lib/app_version_cache.h"
#include "sched/lib/candidate_cache.h"

namespace tharsis {

// What a FastCGI process remembers of the queue between its requests: the size of the jobs
// its last candidate read found at the queue's head (0: none read yet; choose_work_plan.h
// first_window).
struct QueueHeadMemory {
  double job_fpops = 0;
};

struct SchedulerContext {
  const ProjectConfig& config;
  RsaKey upload_private_key;     // signs upload certificates
  std::string code_sign_public;  // BOINC key text sent to clients that lack it
  ProtocolLimits limits;
  // Kept across the requests of a FastCGI process; null: apps and versions are read per request.
  AppVersionCache* app_versions = nullptr;
  // Kept across the requests of a FastCGI process; null: every first read takes kFirstCandidates.
  QueueHeadMemory* queue_head = nullptr;
  // A FastCGI pool worker's part of the unsent queue (candidate_cache.h), kept across its
  // requests; null: every request reads (and locks) its candidates from the queue.
  CandidateCache* candidate_cache = nullptr;
};

}  // namespace tharsis
