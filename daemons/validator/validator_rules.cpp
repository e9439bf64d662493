// The validator's rules: find a canonical result by consensus, check stragglers against
// it, grant credit, give up on unreadable outputs. See validator_rules.h for the contract.
#include "daemons/validator/validator_rules.h"

#include <algorithm>
#include <cstddef>
#include <numeric>

namespace tharsis {
namespace {

// Thrown inside plan_validation only, when the comparator reports a transient error.
struct TransientFailure {
  int64_t result_id;
};

bool is_candidate(const ResultRow& r) {
  return r.server_state == ServerState::Over && r.outcome == Outcome::Success &&
         (r.validate_state == ValidateState::Init || r.validate_state == ValidateState::Inconclusive);
}

std::string id_text(const ResultRow& r) { return "result " + std::to_string(r.id); }

class Planner {
 public:
  Planner(const WorkunitRow& wu, const std::vector<ResultRow>& results, ResultComparator& comparator,
          int64_t now)
      : original_wu_(wu), original_(results), rows_(results), comparator_(comparator), now_(now) {
    plan_.workunit = wu;
    plan_.workunit.need_validate = false;
    // Deterministic order, as check_set walks its results: by id.
    order_.resize(rows_.size());
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    std::sort(order_.begin(), order_.end(),
              [&](std::size_t a, std::size_t b) { return rows_[a].id < rows_[b].id; });
  }

  ValidationPlan run() {
    WorkunitRow& w = plan_.workunit;
    try {
      if (w.canonical_resultid != 0) {
        check_against_canonical();
      } else if (w.error_mask != 0) {
        note("workunit " + std::to_string(w.id) + " has error_mask " + std::to_string(w.error_mask) +
             " and no canonical result: nothing to validate");
      } else {
        look_for_consensus();
      }
    } catch (const TransientFailure& failure) {
      ValidationPlan retry;
      retry.workunit = original_wu_;
      retry.workunit.need_validate = false;
      retry.retry_later = true;
      retry.workunit.transition_time = std::min(retry.workunit.transition_time, now_ + kValidatorRetryDelay);
      retry.notes.push_back("transient error reading result " + std::to_string(failure.result_id) +
                            "; retry later");
      return retry;
    }
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      const ResultRow& a = original_[i];
      const ResultRow& b = rows_[i];
      if (a.validate_state != b.validate_state || a.outcome != b.outcome ||
          a.server_state != b.server_state || a.granted_credit != b.granted_credit) {
        plan_.result_updates.push_back(ResultUpdate{a, b});
      }
    }
    return std::move(plan_);
  }

 private:
  void note(std::string text) { plan_.notes.push_back(std::move(text)); }

  bool readable(ResultRow& r) {
    switch (comparator_.check_readable(r)) {
      case ReadOutcome::Ok:
        return true;
      case ReadOutcome::TransientError:
        throw TransientFailure{r.id};
      case ReadOutcome::PermanentError:
        break;
    }
    return false;
  }

  void mark_validate_error(ResultRow& r) {
    r.outcome = Outcome::ValidateError;
    r.validate_state = ValidateState::Error;
    plan_.workunit.transition_time = now_;  // the transitioner may need a replacement
    note(id_text(r) + ": output unreadable, outcome VALIDATE_ERROR");
  }

  bool agree(const ResultRow& a, const ResultRow& b) {
    switch (comparator_.compare(a, b)) {
      case CompareOutcome::Match:
        return true;
      case CompareOutcome::Mismatch:
        return false;
      case CompareOutcome::TransientError:
        throw TransientFailure{a.id};
      case CompareOutcome::PermanentError:
        note("cannot compare " + id_text(a) + " with " + id_text(b) + ": counted as mismatch");
        return false;
    }
    return false;
  }

  void grant(ResultRow& r, double credit) {
    r.granted_credit = credit;
    plan_.credit_grants.push_back(CreditGrant{r.id, r.hostid, r.userid, credit});
  }

  void check_against_canonical() {
    WorkunitRow& w = plan_.workunit;
    ResultRow* canonical = nullptr;
    for (ResultRow& r : rows_) {
      if (r.id == w.canonical_resultid) canonical = &r;
    }
    if (canonical == nullptr) {
      note("workunit " + std::to_string(w.id) + " names canonical result " +
           std::to_string(w.canonical_resultid) + ", which is not among its " + std::to_string(rows_.size()) +
           " results; nothing checked");
      return;
    }
    const bool canonical_gone = canonical->file_delete_state != FileDeleteState::Init;
    int canonical_readable = -1;  // unknown until a straggler needs it
    for (std::size_t i : order_) {
      ResultRow& r = rows_[i];
      if (r.id == canonical->id || !is_candidate(r)) continue;
      w.transition_time = now_;  // perhaps the last one: let file deletion proceed
      if (canonical_gone) {
        r.validate_state = ValidateState::TooLate;
        note(id_text(r) + ": reported after the canonical result's files were deleted");
        continue;
      }
      if (!readable(r)) {
        mark_validate_error(r);
        continue;
      }
      if (canonical_readable < 0) canonical_readable = readable(*canonical) ? 1 : 0;
      if (canonical_readable == 0) {
        mark_validate_error(r);
        note("canonical " + id_text(*canonical) + " unreadable: " + id_text(r) + " cannot be checked");
        continue;
      }
      if (agree(r, *canonical)) {
        r.validate_state = ValidateState::Valid;
        grant(r, w.canonical_credit);
      } else {
        r.validate_state = ValidateState::Invalid;
      }
    }
  }

  void look_for_consensus() {
    WorkunitRow& w = plan_.workunit;
    std::vector<std::size_t> candidates;
    for (std::size_t i : order_) {
      if (is_candidate(rows_[i])) candidates.push_back(i);
    }
    if (static_cast<int>(candidates.size()) < w.min_quorum) {
      note("workunit " + std::to_string(w.id) + ": " + std::to_string(candidates.size()) +
           " results to validate, quorum is " + std::to_string(w.min_quorum));
      return;
    }
    std::vector<std::size_t> good;
    for (std::size_t i : candidates) {
      if (readable(rows_[i])) {
        good.push_back(i);
      } else {
        mark_validate_error(rows_[i]);
      }
    }
    if (static_cast<int>(good.size()) >= w.min_quorum && find_canonical(good)) return;

    // No consensus (yet).
    for (std::size_t i : good) {
      if (rows_[i].validate_state == ValidateState::Init) {
        rows_[i].validate_state = ValidateState::Inconclusive;
      }
    }
    const int viable = static_cast<int>(good.size());
    if (viable > w.max_success_results) {
      w.error_mask |= kWuErrorTooManySuccessResults;
      w.transition_time = now_;
      note("workunit " + std::to_string(w.id) + ": no consensus among " + std::to_string(viable) +
           " results > max_success_results " + std::to_string(w.max_success_results));
    }
    if (viable >= w.target_nresults) {
      w.target_nresults = viable + 1;
      w.transition_time = now_;
      note("workunit " + std::to_string(w.id) + ": no consensus, target_nresults now " +
           std::to_string(w.target_nresults));
    }
  }

  bool find_canonical(const std::vector<std::size_t>& good) {
    WorkunitRow& w = plan_.workunit;
    const int needed = agreeing_results_needed(w.min_quorum);
    for (std::size_t i : good) {
      std::vector<std::size_t> agreeing;
      for (std::size_t j : good) {
        if (i == j || agree(rows_[i], rows_[j])) agreeing.push_back(j);
      }
      if (static_cast<int>(agreeing.size()) < needed) continue;

      std::vector<double> claims;
      for (std::size_t j : agreeing) claims.push_back(rows_[j].claimed_credit);
      const double credit = credit_for_valid_set(claims);
      for (std::size_t j : good) {
        const bool valid = std::find(agreeing.begin(), agreeing.end(), j) != agreeing.end();
        rows_[j].validate_state = valid ? ValidateState::Valid : ValidateState::Invalid;
        if (valid) grant(rows_[j], credit);
      }
      w.canonical_resultid = rows_[i].id;
      w.canonical_credit = credit;
      if (w.assimilate_state == AssimilateState::Init) w.assimilate_state = AssimilateState::Ready;
      w.transition_time = now_;
      for (ResultRow& r : rows_) {
        if (r.server_state == ServerState::Unsent) {
          r.server_state = ServerState::Over;
          r.outcome = Outcome::DidntNeed;
        }
      }
      note("workunit " + std::to_string(w.id) + ": canonical " + id_text(rows_[i]) + ", " +
           std::to_string(agreeing.size()) + " valid, credit " + std::to_string(credit));
      return true;
    }
    return false;
  }

  ValidationPlan plan_;
  const WorkunitRow& original_wu_;
  const std::vector<ResultRow>& original_;
  std::vector<ResultRow> rows_;
  std::vector<std::size_t> order_;
  ResultComparator& comparator_;
  int64_t now_;
};

}  // namespace

int agreeing_results_needed(int min_quorum) { return std::max(1, min_quorum / 2 + 1); }

double credit_for_valid_set(const std::vector<double>& claimed_credits) {
  if (claimed_credits.empty()) return 0;
  std::vector<double> c = claimed_credits;
  std::sort(c.begin(), c.end());
  if (c.size() == 1) return c[0];
  if (c.size() == 2) return c[0];
  const double sum = std::accumulate(c.begin() + 1, c.end() - 1, 0.0);
  return sum / static_cast<double>(c.size() - 2);
}

ValidationPlan plan_validation(const WorkunitRow& wu, const std::vector<ResultRow>& results,
                               ResultComparator& comparator, int64_t now) {
  return Planner(wu, results, comparator, now).run();
}

}  // namespace tharsis
