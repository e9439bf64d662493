// The transitioner's rules: time-outs, error conditions, new results, validation and
// file-deletion triggers, next transition time. See transitioner_rules.h for the contract.
#include "daemons/transitioner/transitioner_rules.h"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <set>

namespace tharsis {
namespace {

bool is_canonical(const WorkunitRow& wu, const ResultRow& r) {
  return wu.canonical_resultid != 0 && r.id == wu.canonical_resultid;
}

const ResultRow* find_canonical(const WorkunitRow& wu, const std::vector<ResultRow>& results) {
  for (const ResultRow& r : results) {
    if (is_canonical(wu, r)) return &r;
  }
  return nullptr;
}

std::string wu_text(const WorkunitRow& wu) {
  return "workunit " + std::to_string(wu.id) + " (" + wu.name + ")";
}

void count_result(const ResultRow& r, TransitionCounts& c) {
  ++c.total;
  switch (r.server_state) {
    case ServerState::Unsent:
      ++c.unsent;
      return;
    case ServerState::InProgress:
      ++c.in_progress;
      return;
    case ServerState::Over:
      break;
  }
  ++c.over;
  switch (r.outcome) {
    case Outcome::Success:
      // An INVALID result does not count towards the quorum.
      if (r.validate_state != ValidateState::Invalid) ++c.success;
      break;
    case Outcome::CouldntSend:
      ++c.couldnt_send;
      break;
    case Outcome::ClientError:
      if (r.exit_status == kExitAbortedViaGui) {
        ++c.no_reply;
      } else {
        ++c.errors;
      }
      break;
    case Outcome::ValidateError:
      ++c.errors;
      break;
    case Outcome::NoReply:
    case Outcome::ClientDetached:
      ++c.no_reply;
      break;
    case Outcome::DidntNeed:
      ++c.didnt_need;
      break;
    case Outcome::Init:
      break;  // OVER without outcome: tools/check reports it
  }
}

int new_result_base_suffix(const WorkunitRow& wu, const std::vector<ResultRow>& results) {
  int64_t max_suffix = -1;
  for (const ResultRow& r : results) {
    max_suffix = std::max(max_suffix, result_name_suffix(wu.name, r.name));
  }
  return static_cast<int>(std::max<int64_t>(max_suffix + 1, static_cast<int64_t>(results.size())));
}

ResultRow make_new_result(const WorkunitRow& wu, const std::string& name, int64_t now) {
  ResultRow r;
  r.create_time = now;
  r.workunitid = wu.id;
  r.appid = wu.appid;
  r.name = name;
  r.server_state = ServerState::Unsent;
  r.outcome = Outcome::Init;
  r.client_state = ClientState::New;
  r.file_delete_state = FileDeleteState::Init;
  r.validate_state = ValidateState::Init;
  r.priority = wu.priority;
  // Deterministic (the plan is a pure function) yet spread like BOINC's random column.
  r.random = static_cast<int>(std::hash<std::string>{}(name)&0x3fffffff);
  return r;
}

}  // namespace

int64_t result_name_suffix(const std::string& wu_name, const std::string& result_name) {
  if (result_name.size() <= wu_name.size() + 1) return -1;
  if (result_name.compare(0, wu_name.size(), wu_name) != 0) return -1;
  if (result_name[wu_name.size()] != '_') return -1;
  int64_t n = 0;
  for (std::size_t i = wu_name.size() + 1; i < result_name.size(); ++i) {
    char ch = result_name[i];
    if (ch < '0' || ch > '9') return -1;
    if (n > (int64_t{1} << 40)) return -1;  // absurd suffix: not one of ours
    n = n * 10 + (ch - '0');
  }
  return n;
}

TransitionPlan plan_transition(const WorkunitRow& wu, const std::vector<ResultRow>& results, int64_t now) {
  TransitionPlan plan;
  plan.workunit = wu;
  WorkunitRow& w = plan.workunit;
  std::vector<ResultRow> rows = results;  // working copy: state after this plan
  const bool has_canonical = wu.canonical_resultid != 0;
  const ResultRow* canonical = find_canonical(wu, results);
  const bool canonical_gone = canonical != nullptr && canonical->file_delete_state != FileDeleteState::Init;
  if (has_canonical && canonical == nullptr) {
    plan.notes.push_back(wu_text(wu) + ": canonical result " + std::to_string(wu.canonical_resultid) +
                         " is not among its " + std::to_string(results.size()) + " results");
  }

  // 1-2. Time-outs and too-late results, then counts over the updated states.
  for (ResultRow& r : rows) {
    if (r.server_state == ServerState::InProgress && now > r.report_deadline) {
      r.server_state = ServerState::Over;
      r.outcome = Outcome::NoReply;
      plan.timed_out_result_ids.push_back(r.id);
      ++plan.counts.timed_out;
      plan.notes.push_back(wu_text(wu) + ": result " + std::to_string(r.id) + " timed out (" +
                           "report_deadline " + std::to_string(r.report_deadline) + " < now " +
                           std::to_string(now) + "): OVER, NO_REPLY");
    }
    if (r.server_state == ServerState::Over && r.outcome == Outcome::Success &&
        r.validate_state == ValidateState::Init && canonical_gone && !is_canonical(wu, r)) {
      r.validate_state = ValidateState::TooLate;
    }
    count_result(r, plan.counts);
  }
  TransitionCounts& c = plan.counts;

  // 3. Error conditions. BOINC checks TOO_MANY_SUCCESS_RESULTS in the validator.
  int needed = 0;
  if (!has_canonical) {
    if (c.couldnt_send > 0) w.error_mask |= kWuErrorCouldntSendResult;
    if (c.errors > wu.max_error_results) w.error_mask |= kWuErrorTooManyErrorResults;
    needed = std::max(0, wu.target_nresults - c.unsent - c.in_progress - c.success);
    const int allowed = wu.max_total_results - c.total;
    if (allowed < 0 || (allowed == 0 && needed > 0)) {
      w.error_mask |= kWuErrorTooManyTotalResults;
    }
    needed = std::min(needed, std::max(allowed, 0));
  }
  if (w.error_mask != wu.error_mask) {
    plan.notes.push_back(wu_text(wu) + ": error_mask " + std::to_string(wu.error_mask) + " -> " +
                         std::to_string(w.error_mask) + " (" + std::to_string(c.total) + " results, " +
                         std::to_string(c.errors) + " errors, " + std::to_string(c.couldnt_send) +
                         " couldn't send)");
  }

  // 4. A dead workunit sends nothing more and goes to the assimilator; otherwise top up.
  if (w.error_mask != 0) {
    for (ResultRow& r : rows) {
      if (r.server_state == ServerState::Unsent) {
        r.server_state = ServerState::Over;
        r.outcome = Outcome::DidntNeed;
      } else if (r.server_state == ServerState::Over && r.outcome == Outcome::Success &&
                 (r.validate_state == ValidateState::Init ||
                  r.validate_state == ValidateState::Inconclusive)) {
        // Not pending any more: shows the claimed credit is not coming.
        r.validate_state = ValidateState::NoCheck;
      }
    }
    if (w.assimilate_state == AssimilateState::Init) w.assimilate_state = AssimilateState::Ready;
  } else if (!has_canonical && needed > 0) {
    std::set<std::string> names;
    for (const ResultRow& r : rows) names.insert(r.name);
    int suffix = new_result_base_suffix(wu, rows);
    for (int k = 0; k < needed; ++k) {
      std::string name;
      do {
        name = wu.name + "_" + std::to_string(suffix++);
      } while (names.count(name) != 0);
      names.insert(name);
      plan.new_results.push_back(make_new_result(wu, name, now));
    }
    c.new_results = needed;
    plan.notes.push_back(wu_text(wu) + ": " + std::to_string(needed) + " new result(s) (target " +
                         std::to_string(wu.target_nresults) + ", unsent " + std::to_string(c.unsent) +
                         ", in progress " + std::to_string(c.in_progress) + ", success " +
                         std::to_string(c.success) + ")");
  }

  // 5. Validation trigger, and the scan for "all OVER and all SUCCESS validated".
  bool unvalidated_success = false;
  bool all_over_and_validated = true;
  for (const ResultRow& r : rows) {
    if (r.server_state != ServerState::Over) {
      all_over_and_validated = false;
    } else if (r.outcome == Outcome::Success && r.validate_state == ValidateState::Init) {
      unvalidated_success = true;
      all_over_and_validated = false;
    }
  }
  if (unvalidated_success && (has_canonical || c.success >= wu.min_quorum)) {
    w.need_validate = true;
  }

  // 6. File deletion, once the assimilator is done with the workunit.
  if (w.assimilate_state == AssimilateState::Done) {
    if (all_over_and_validated && w.file_delete_state == FileDeleteState::Init) {
      w.file_delete_state = FileDeleteState::Ready;
    }
    for (ResultRow& r : rows) {
      if (r.file_delete_state != FileDeleteState::Init) continue;
      if (is_canonical(wu, r) && !all_over_and_validated) continue;
      // Unsent, timed-out or unneeded results never uploaded anything to delete.
      const bool has_outputs = r.server_state == ServerState::Over &&
                               (r.outcome == Outcome::ClientError || r.validate_state != ValidateState::Init);
      if (has_outputs) r.file_delete_state = FileDeleteState::Ready;
    }
  }

  // 7. Next look: when the first result still out would time out.
  int64_t next = kTransitionNever;
  for (const ResultRow& r : rows) {
    if (r.server_state == ServerState::InProgress) next = std::min(next, r.report_deadline);
  }
  if (next != kTransitionNever && next <= now) next = now + 1;
  w.transition_time = next;

  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ResultRow& a = results[i];
    const ResultRow& b = rows[i];
    if (a.server_state != b.server_state || a.outcome != b.outcome || a.validate_state != b.validate_state ||
        a.file_delete_state != b.file_delete_state) {
      plan.result_updates.push_back(ResultUpdate{a, b});
    }
  }
  return plan;
}

}  // namespace tharsis
