// Implementation of db/state_names.h: one table of names per enum.
#include "db/state_names.h"

#include <array>
#include <utility>

#include "db/batch_store.h"

namespace tharsis {
namespace {

template <class E, size_t N>
using Names = std::array<std::pair<E, std::string_view>, N>;

constexpr Names<FileDeleteState, 3> kFileDeleteStates{
    {{FileDeleteState::Init, "INIT"}, {FileDeleteState::Ready, "READY"}, {FileDeleteState::Done, "DONE"}}};
constexpr Names<AssimilateState, 3> kAssimilateStates{
    {{AssimilateState::Init, "INIT"}, {AssimilateState::Ready, "READY"}, {AssimilateState::Done, "DONE"}}};
constexpr Names<ServerState, 3> kServerStates{
    {{ServerState::Unsent, "UNSENT"}, {ServerState::InProgress, "IN_PROGRESS"}, {ServerState::Over, "OVER"}}};
constexpr Names<Outcome, 8> kOutcomes{{{Outcome::Init, "INIT"},
                                       {Outcome::Success, "SUCCESS"},
                                       {Outcome::CouldntSend, "COULDNT_SEND"},
                                       {Outcome::ClientError, "CLIENT_ERROR"},
                                       {Outcome::NoReply, "NO_REPLY"},
                                       {Outcome::DidntNeed, "DIDNT_NEED"},
                                       {Outcome::ValidateError, "VALIDATE_ERROR"},
                                       {Outcome::ClientDetached, "CLIENT_DETACHED"}}};
constexpr Names<ClientState, 7> kClientStates{{{ClientState::New, "NEW"},
                                               {ClientState::Downloading, "DOWNLOADING"},
                                               {ClientState::Downloaded, "DOWNLOADED"},
                                               {ClientState::ComputeError, "COMPUTE_ERROR"},
                                               {ClientState::Uploading, "UPLOADING"},
                                               {ClientState::Uploaded, "UPLOADED"},
                                               {ClientState::Aborted, "ABORTED"}}};
constexpr Names<ValidateState, 7> kValidateStates{{{ValidateState::Init, "INIT"},
                                                   {ValidateState::Valid, "VALID"},
                                                   {ValidateState::Invalid, "INVALID"},
                                                   {ValidateState::NoCheck, "NO_CHECK"},
                                                   {ValidateState::Inconclusive, "INCONCLUSIVE"},
                                                   {ValidateState::TooLate, "TOO_LATE"},
                                                   {ValidateState::Error, "ERROR"}}};
constexpr Names<OperandState, 8> kOperandStates{{{OperandState::Unscheduled, "UNSCHEDULED"},
                                                 {OperandState::Ready, "READY"},
                                                 {OperandState::Running, "RUNNING"},
                                                 {OperandState::Finished, "FINISHED"},
                                                 {OperandState::Freed, "FREED"},
                                                 {OperandState::Fatal, "FATAL"},
                                                 {OperandState::Cancelling, "CANCELLING"},
                                                 {OperandState::Cancelled, "CANCELLED"}}};
constexpr Names<ClusterTaskState, 3> kClusterTaskStates{{{ClusterTaskState::Waiting, "WAITING"},
                                                         {ClusterTaskState::InJob, "IN_JOB"},
                                                         {ClusterTaskState::Done, "DONE"}}};
constexpr Names<ClusterJobState, 2> kClusterJobStates{
    {{ClusterJobState::Live, "LIVE"}, {ClusterJobState::Settled, "SETTLED"}}};
constexpr Names<GraphState, 5> kGraphStates{{{GraphState::Running, "RUNNING"},
                                             {GraphState::Done, "DONE"},
                                             {GraphState::Failed, "FAILED"},
                                             {GraphState::Cancelling, "CANCELLING"},
                                             {GraphState::Cancelled, "CANCELLED"}}};
constexpr Names<BatchState, 5> kBatchStates{{{BatchState::Init, "INIT"},
                                             {BatchState::InProgress, "IN_PROGRESS"},
                                             {BatchState::Completed, "COMPLETED"},
                                             {BatchState::Aborted, "ABORTED"},
                                             {BatchState::Retired, "RETIRED"}}};

template <class E, size_t N>
std::string_view name_in(const Names<E, N>& names, E value) {
  for (const auto& [state, name] : names) {
    if (state == value) return name;
  }
  return {};
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto upper = [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; };
    if (upper(a[i]) != upper(b[i])) return false;
  }
  return true;
}

template <class E, size_t N>
std::optional<E> value_in(const Names<E, N>& names, std::string_view wanted) {
  for (const auto& [state, name] : names) {
    if (same_ignoring_case(name, wanted)) return state;
  }
  return std::nullopt;
}

}  // namespace

#define THARSIS_STATE_NAMES(Enum, table)                                   \
  std::string_view to_string(Enum value) { return name_in(table, value); } \
  template <>                                                              \
  std::optional<Enum> from_string<Enum>(std::string_view name) {           \
    return value_in(table, name);                                          \
  }

THARSIS_STATE_NAMES(FileDeleteState, kFileDeleteStates)
THARSIS_STATE_NAMES(AssimilateState, kAssimilateStates)
THARSIS_STATE_NAMES(ServerState, kServerStates)
THARSIS_STATE_NAMES(Outcome, kOutcomes)
THARSIS_STATE_NAMES(ClientState, kClientStates)
THARSIS_STATE_NAMES(ValidateState, kValidateStates)
THARSIS_STATE_NAMES(OperandState, kOperandStates)
THARSIS_STATE_NAMES(ClusterTaskState, kClusterTaskStates)
THARSIS_STATE_NAMES(ClusterJobState, kClusterJobStates)
THARSIS_STATE_NAMES(GraphState, kGraphStates)
THARSIS_STATE_NAMES(BatchState, kBatchStates)

#undef THARSIS_STATE_NAMES

std::string operand_state_name(OperandState state) {
  std::string name = lower_name(state);
  return name.empty() ? "unknown" : name;
}

std::string graph_state_name(GraphState state) {
  std::string name = lower_name(state);
  return name.empty() ? "unknown" : name;
}

}  // namespace tharsis
