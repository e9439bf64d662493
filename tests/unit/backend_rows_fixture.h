// Builders for workunit and result rows in the unit tests of the back-end rules: a row in
// a named state in one line, so each test shows only the fields its rule is about.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "db/row_changes.h"
#include "db/rows.h"

namespace tharsis::test {

inline WorkunitRow make_wu(int min_quorum = 2, int target_nresults = 2) {
  WorkunitRow wu;
  wu.id = 7;
  wu.appid = 3;
  wu.name = "wu7";
  wu.delay_bound = 1000;
  wu.min_quorum = min_quorum;
  wu.target_nresults = target_nresults;
  wu.max_error_results = 3;
  wu.max_total_results = 10;
  wu.max_success_results = 6;
  wu.priority = 5;
  wu.transition_time = 0;
  return wu;
}

inline ResultRow make_result(int64_t id, ServerState state, Outcome outcome = Outcome::Init,
                             ValidateState validate = ValidateState::Init) {
  ResultRow r;
  r.id = id;
  r.workunitid = 7;
  r.appid = 3;
  r.name = "wu7_" + std::to_string(id - 100);
  r.server_state = state;
  r.outcome = outcome;
  r.validate_state = validate;
  r.hostid = 1000 + id;
  r.userid = 2000 + id;
  if (state != ServerState::Unsent) {
    r.sent_time = 100;
    r.report_deadline = 1100;
  }
  return r;
}

inline ResultRow unsent(int64_t id) { return make_result(id, ServerState::Unsent); }

inline ResultRow in_progress(int64_t id, int64_t report_deadline) {
  ResultRow r = make_result(id, ServerState::InProgress);
  r.report_deadline = report_deadline;
  return r;
}

inline ResultRow success(int64_t id, ValidateState validate = ValidateState::Init,
                         std::string answer = "42") {
  ResultRow r = make_result(id, ServerState::Over, Outcome::Success, validate);
  r.xml_doc_out = std::move(answer);
  r.claimed_credit = 10;
  return r;
}

inline ResultRow over(int64_t id, Outcome outcome) { return make_result(id, ServerState::Over, outcome); }

// The result with `id` as a rule's `plan` (its result_updates) leaves it: the updated row,
// else the row as it was in `results`. A failure when there is none.
template <class Plan>
ResultRow after(const Plan& plan, const std::vector<ResultRow>& results, int64_t id) {
  for (const ResultUpdate& u : plan.result_updates) {
    if (u.after.id == id) return u.after;
  }
  for (const ResultRow& r : results) {
    if (r.id == id) return r;
  }
  ADD_FAILURE() << "no result " << id;
  return ResultRow{};
}

}  // namespace tharsis::test
