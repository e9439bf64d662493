// The names of the state enums (db/states.h, BatchState of db/batch_store.h), in one
// place: BOINC's upper-case names ("IN_PROGRESS", "CLIENT_ERROR"), used by the status
// pages, the tools and the logs. from_string reads a name back, in either case.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "db/states.h"

namespace tharsis {

enum class BatchState : int;  // db/batch_store.h

// BOINC's name of the state; "" for a value that is not one of the enum's codes.
std::string_view to_string(FileDeleteState state);
std::string_view to_string(AssimilateState state);
std::string_view to_string(ServerState state);
std::string_view to_string(Outcome outcome);
std::string_view to_string(ClientState state);
std::string_view to_string(ValidateState state);
std::string_view to_string(OperandState state);
std::string_view to_string(ClusterTaskState state);
std::string_view to_string(ClusterJobState state);
std::string_view to_string(GraphState state);
std::string_view to_string(BatchState state);

// The name in lower case ("in_progress"), as the status pages' JSON and CSS classes use it.
template <class E>
std::string lower_name(E value) {
  std::string name(to_string(value));
  for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return name;
}

// The state named `name` (upper or lower case), or nullopt when E has no such name.
template <class E>
std::optional<E> from_string(std::string_view name);
template <>
std::optional<FileDeleteState> from_string(std::string_view name);
template <>
std::optional<AssimilateState> from_string(std::string_view name);
template <>
std::optional<ServerState> from_string(std::string_view name);
template <>
std::optional<Outcome> from_string(std::string_view name);
template <>
std::optional<ClientState> from_string(std::string_view name);
template <>
std::optional<ValidateState> from_string(std::string_view name);
template <>
std::optional<OperandState> from_string(std::string_view name);
template <>
std::optional<ClusterTaskState> from_string(std::string_view name);
template <>
std::optional<ClusterJobState> from_string(std::string_view name);
template <>
std::optional<GraphState> from_string(std::string_view name);
template <>
std::optional<BatchState> from_string(std::string_view name);

// Every operand state, in code order: the columns and legend of the graph pages.
inline constexpr OperandState kAllOperandStates[] = {
    OperandState::Unscheduled, OperandState::Ready, OperandState::Running,    OperandState::Finished,
    OperandState::Freed,       OperandState::Fatal, OperandState::Cancelling, OperandState::Cancelled};

// "unscheduled", "ready", ..., "cancelled" ("unknown" for a value that is no state).
std::string operand_state_name(OperandState state);

// "running", "done", "failed", "cancelling", "cancelled" ("unknown" likewise).
std::string graph_state_name(GraphState state);

}  // namespace tharsis
