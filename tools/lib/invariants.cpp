// Instant invariants of the back-end law over one workunit and its results.
// See invariants.h for the list and why each always holds.
#include "tools/lib/invariants.h"

#include <set>
#include <sstream>

namespace tharsis {
namespace {

class Checker {
 public:
  Checker(const WorkunitRow& wu, const std::vector<ResultRow>& results, int64_t now)
      : wu_(wu), results_(results), now_(now) {}

  std::vector<InvariantViolation> run() {
    for (const ResultRow& r : results_) check_result(r);
    check_workunit();
    return std::move(violations_);
  }

 private:
  std::string wu_text() const { return "workunit " + std::to_string(wu_.id) + " (" + wu_.name + ")"; }
  std::string result_text(const ResultRow& r) const {
    return "result " + std::to_string(r.id) + " (" + r.name + ") of " + wu_text();
  }
  void fail(const char* rule, int64_t result_id, std::string message) {
    violations_.push_back(InvariantViolation{rule, wu_.id, result_id, std::move(message)});
  }

  void check_result(const ResultRow& r) {
    const bool over = r.server_state == ServerState::Over;
    if (r.workunitid != wu_.id) {
      fail("result_of_workunit", r.id,
           result_text(r) + ": expected workunitid " + std::to_string(wu_.id) + ", found " +
               std::to_string(r.workunitid));
    }
    if (!names_.insert(r.name).second) {
      fail("distinct_names", r.id, result_text(r) + ": name used by another result");
    }
    if (over != (r.outcome != Outcome::Init)) {
      fail("outcome_iff_over", r.id,
           result_text(r) + ": expected an outcome exactly when OVER, found server_state " +
               std::to_string(code(r.server_state)) + " outcome " + std::to_string(code(r.outcome)));
    }
    const bool defined = r.validate_state == ValidateState::Init ||
                         (r.outcome == Outcome::Success && r.validate_state != ValidateState::Error) ||
                         (r.outcome == Outcome::ValidateError && r.validate_state == ValidateState::Error);
    if (!defined || (r.outcome == Outcome::ValidateError && r.validate_state != ValidateState::Error)) {
      fail("validate_state_defined", r.id,
           result_text(r) + ": validate_state " + std::to_string(code(r.validate_state)) + " with outcome " +
               std::to_string(code(r.outcome)) + " (expected INIT unless SUCCESS, ERROR for VALIDATE_ERROR)");
    }
    if (r.server_state == ServerState::InProgress && r.report_deadline == 0) {
      fail("deadline_when_sent", r.id, result_text(r) + ": IN_PROGRESS without report_deadline");
    }
    const bool verdict = r.validate_state == ValidateState::Valid ||
                         r.validate_state == ValidateState::Invalid ||
                         r.validate_state == ValidateState::TooLate;
    if (verdict && wu_.canonical_resultid == 0) {
      fail("verdict_needs_canonical", r.id,
           result_text(r) + ": validate_state " + std::to_string(code(r.validate_state)) +
               " but the workunit has no canonical result");
    }
    if (r.validate_state == ValidateState::NoCheck && wu_.error_mask == 0) {
      fail("no_check_needs_error", r.id, result_text(r) + ": NO_CHECK but the workunit's error_mask is 0");
    }
    if (r.file_delete_state != FileDeleteState::Init &&
        (!over || wu_.assimilate_state != AssimilateState::Done)) {
      fail("result_files_after_assimilation", r.id,
           result_text(r) + ": file_delete_state " + std::to_string(code(r.file_delete_state)) +
               " while server_state " + std::to_string(code(r.server_state)) +
               " and workunit assimilate_state " + std::to_string(code(wu_.assimilate_state)) +
               " (expected OVER and DONE)");
    }
    if (r.server_state != ServerState::Over) all_over_ = false;
    if (r.server_state == ServerState::Unsent) ++unsent_;
  }

  void check_workunit() {
    const ResultRow* canonical = nullptr;
    for (const ResultRow& r : results_) {
      if (wu_.canonical_resultid != 0 && r.id == wu_.canonical_resultid) canonical = &r;
    }
    if (wu_.canonical_resultid != 0) {
      if (canonical == nullptr) {
        fail("canonical_is_valid", wu_.canonical_resultid,
             wu_text() + ": canonical result " + std::to_string(wu_.canonical_resultid) +
                 " is not one of its results");
      } else if (canonical->outcome != Outcome::Success ||
                 canonical->validate_state != ValidateState::Valid) {
        fail("canonical_is_valid", canonical->id,
             result_text(*canonical) + ": canonical but outcome " + std::to_string(code(canonical->outcome)) +
                 " validate_state " + std::to_string(code(canonical->validate_state)) +
                 " (expected SUCCESS, VALID)");
      }
      if (canonical != nullptr && canonical->file_delete_state != FileDeleteState::Init && !all_over_) {
        fail("canonical_files_last", canonical->id,
             result_text(*canonical) + ": canonical files deleted while results are not all OVER");
      }
      if (wu_.assimilate_state == AssimilateState::Init) {
        fail("canonical_is_assimilated", 0, wu_text() + ": has canonical result but assimilate_state INIT");
      }
      if (unsent_ > 0) {
        fail("no_unsent_after_canonical", 0,
             wu_text() + ": has canonical result but " + std::to_string(unsent_) + " UNSENT result(s)");
      }
    }
    if (wu_.assimilate_state != AssimilateState::Init && wu_.canonical_resultid == 0 && wu_.error_mask == 0) {
      fail("assimilate_needs_reason", 0,
           wu_text() + ": assimilate_state " + std::to_string(code(wu_.assimilate_state)) +
               " without canonical result or error_mask");
    }
    if (wu_.file_delete_state != FileDeleteState::Init &&
        (wu_.assimilate_state != AssimilateState::Done || !all_over_)) {
      fail("input_files_after_all_over", 0,
           wu_text() + ": file_delete_state " + std::to_string(code(wu_.file_delete_state)) +
               " but assimilate_state " + std::to_string(code(wu_.assimilate_state)) +
               (all_over_ ? "" : " and not all results OVER") + " (expected DONE and all OVER)");
    }
    for (const ResultRow& r : results_) {
      if (r.server_state == ServerState::InProgress && wu_.transition_time > now_ &&
          wu_.transition_time > r.report_deadline + 1) {
        fail("timeout_scheduled", r.id,
             result_text(r) + ": IN_PROGRESS with report_deadline " + std::to_string(r.report_deadline) +
                 " but transition_time " + std::to_string(wu_.transition_time) + " at now " +
                 std::to_string(now_) + " (the time-out would be missed)");
      }
    }
    if (static_cast<int64_t>(results_.size()) > wu_.max_total_results) {
      fail("total_results_bounded", 0,
           wu_text() + ": " + std::to_string(results_.size()) + " results > max_total_results " +
               std::to_string(wu_.max_total_results));
    }
  }

  const WorkunitRow& wu_;
  const std::vector<ResultRow>& results_;
  int64_t now_;
  std::vector<InvariantViolation> violations_;
  std::set<std::string> names_;
  bool all_over_ = true;
  int unsent_ = 0;
};

}  // namespace

std::vector<InvariantViolation> check_workunit_invariants(const WorkunitRow& wu,
                                                          const std::vector<ResultRow>& results,
                                                          int64_t now) {
  return Checker(wu, results, now).run();
}

std::string format_violations(const std::vector<InvariantViolation>& violations) {
  std::ostringstream out;
  for (const InvariantViolation& v : violations) out << "[" << v.rule << "] " << v.message << "\n";
  return out.str();
}

}  // namespace tharsis
