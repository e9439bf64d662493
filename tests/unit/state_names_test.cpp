// db/state_names.h: every state code has BOINC's name, and each name reads back.
#include "db/state_names.h"

#include <gtest/gtest.h>

#include "db/batch_store.h"

namespace tharsis {
namespace {

// Every code from `first` to `last` that names a state reads back from its name, in
// either case; returns how many codes had a name.
template <class E>
int round_trips(int first, int last) {
  int named = 0;
  for (int c = first; c <= last; ++c) {
    const E value = static_cast<E>(c);
    const std::string_view name = to_string(value);
    if (name.empty()) continue;
    ++named;
    EXPECT_EQ(from_string<E>(name), value) << name;
    EXPECT_EQ(from_string<E>(lower_name(value)), value) << name;
  }
  return named;
}

TEST(StateNames, EveryCodeHasItsNameAndReadsBack) {
  EXPECT_EQ(round_trips<FileDeleteState>(0, 9), 3);
  EXPECT_EQ(round_trips<AssimilateState>(0, 9), 3);
  EXPECT_EQ(round_trips<ServerState>(0, 9), 3);
  EXPECT_EQ(round_trips<Outcome>(0, 9), 8);
  EXPECT_EQ(round_trips<ClientState>(0, 9), 7);
  EXPECT_EQ(round_trips<ValidateState>(0, 9), 7);
  EXPECT_EQ(round_trips<OperandState>(0, 9), 8);
  EXPECT_EQ(round_trips<ClusterTaskState>(0, 9), 3);
  EXPECT_EQ(round_trips<ClusterJobState>(0, 9), 2);
  EXPECT_EQ(round_trips<GraphState>(0, 9), 5);
  EXPECT_EQ(round_trips<BatchState>(0, 9), 5);
}

TEST(StateNames, NamesAreBoincsAndUnknownsAreEmpty) {
  EXPECT_EQ(to_string(ServerState::InProgress), "IN_PROGRESS");
  EXPECT_EQ(to_string(Outcome::ClientDetached), "CLIENT_DETACHED");
  EXPECT_EQ(to_string(ValidateState::TooLate), "TOO_LATE");
  EXPECT_EQ(lower_name(OperandState::Unscheduled), "unscheduled");
  EXPECT_EQ(to_string(static_cast<ServerState>(3)), "");
  EXPECT_EQ(from_string<ServerState>("SENT"), std::nullopt);
  EXPECT_EQ(from_string<Outcome>(""), std::nullopt);
}

}  // namespace
}  // namespace tharsis
