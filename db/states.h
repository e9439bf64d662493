// The state codes of the back-end law (BOINC's server state variables). The number
// stored in the database is BOINC's number, so these enums are the single place
// that maps names to codes.
#pragma once

#include <cstdint>
#include <limits>

namespace tharsis {

// "Infinity" for workunit.transition_time: no further transition is due.
inline constexpr int64_t kTransitionNever = std::numeric_limits<int32_t>::max();

enum class FileDeleteState : int { Init = 0, Ready = 1, Done = 2 };
enum class AssimilateState : int { Init = 0, Ready = 1, Done = 2 };

// workunit.error_mask bits.
enum WuErrorBit : int {
  kWuErrorCouldntSendResult = 1,
  kWuErrorTooManyErrorResults = 2,
  kWuErrorTooManySuccessResults = 4,
  kWuErrorTooManyTotalResults = 8,
  kWuErrorCancelled = 16,  // BOINC's WU_ERROR_CANCELLED: cancelled by the submitter.
};

enum class ServerState : int { Unsent = 2, InProgress = 4, Over = 5 };

// Defined iff server_state == Over; Init (0) before that.
enum class Outcome : int {
  Init = 0,
  Success = 1,
  CouldntSend = 2,
  ClientError = 3,
  NoReply = 4,
  DidntNeed = 5,
  ValidateError = 6,
  ClientDetached = 7,
};

// Where on the client a CLIENT_ERROR happened (BOINC's client result states).
enum class ClientState : int {
  New = 0,
  Downloading = 1,
  Downloaded = 2,
  ComputeError = 3,
  Uploading = 4,
  Uploaded = 5,
  Aborted = 6,
};

// Defined iff outcome == Success. The law's "ERROR" has no number; BOINC's codes
// stop at TOO_LATE (5), so the validator's permanent read error gets 6.
enum class ValidateState : int {
  Init = 0,
  Valid = 1,
  Invalid = 2,
  NoCheck = 3,
  Inconclusive = 4,
  TooLate = 5,
  Error = 6,
};

// docs/operand_graphs.md: an operand graph's chunk operand, stored in operand.state. UNSCHEDULED until
// every predecessor's output is assimilated, then READY (results created), RUNNING, FINISHED,
// FREED once every successor has finished; FATAL propagates to successors; CANCELLING and
// CANCELLED follow tools/cancel_graph.
enum class OperandState : int {
  Unscheduled = 0,
  Ready = 1,
  Running = 2,
  Finished = 3,
  Freed = 4,
  Fatal = 5,
  Cancelling = 6,
  Cancelled = 7,
};
// cluster_task.state (reclustering; not a BOINC table).
enum class ClusterTaskState : int { Waiting = 0, InJob = 1, Done = 2 };
// cluster_job.state.
enum class ClusterJobState : int { Live = 0, Settled = 1 };

// graph.state: RUNNING from submission; DONE when every operand finished; FAILED when an
// operand was FATAL and nothing of the graph runs any more; CANCELLING after
// tools/cancel_graph until every operand's work has stopped, then CANCELLED.
enum class GraphState : int { Running = 0, Done = 1, Failed = 2, Cancelling = 3, Cancelled = 4 };

template <class E>
constexpr int code(E value) {
  return static_cast<int>(value);
}

}  // namespace tharsis
