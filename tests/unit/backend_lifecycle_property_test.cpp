// Property test of the back-end law: many seeded random workunits driven by random events
// (send, report success or error, late reports, time passing) and by the daemons' rules
// (transitioner, validator, the assimilator — which now and then finds the canonical
// result's files swapped and withdraws it — and the file deleter) only ever reach states the
// invariant checker accepts, never move a state variable backwards, assimilate each
// workunit exactly once, delete no input a live workunit still needs, and every workunit
// ends with a canonical result or an error, transition_time = never, all results OVER and
// all files deleted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "daemons/assimilator/assimilator_rules.h"
#include "daemons/file_deleter/file_deleter_rules.h"
#include "daemons/transitioner/transitioner_rules.h"
#include "daemons/validator/validator_rules.h"
#include "tools/lib/invariants.h"

namespace tharsis {
namespace {

// How often the interesting paths were taken, so the test can insist they were.
struct PathCounts {
  int with_canonical = 0;
  int with_error = 0;
  int late_reports = 0;
  int too_late = 0;
  int validate_errors = 0;
  int inconclusive = 0;
  int stragglers_checked = 0;
  int validator_retries = 0;
  int timeouts = 0;
  int shared_inputs_kept = 0;
  int deletion_retries = 0;
  int withdrawn_canonicals = 0;
};

struct SimWorkunit {
  WorkunitRow wu;
  std::vector<ResultRow> results;
  std::vector<std::string> inputs;
  int assimilations = 0;
  // The file deleter's back-off (file_delete_retry): the workunit's and its results' rows
  // whose files failed to go wait until next_time.
  std::map<int64_t, FileDeleteRetry> input_retry, output_retry;  // by workunit, by result id
  std::vector<std::string> history;                              // printed when something goes wrong
};

// True once the simulated world holds a failure; later checks are skipped.
class World {
 public:
  explicit World(uint64_t seed) : seed_(seed), rng_(seed) {
    const int n = uniform(4, 12);
    for (int i = 0; i < n; ++i) add_workunit(i + 1);
  }

  void run() {
    const int random_steps = uniform(100, 600);
    for (int step = 0; step < random_steps && ok(); ++step) random_event(/*draining=*/false);
    // Drain: hosts keep working but nothing unusual happens; everything must settle.
    for (int step = 0; step < 200000 && ok(); ++step) {
      run_daemons_until_quiet();
      if (all_settled()) break;
      random_event(/*draining=*/true);
    }
    if (ok()) check_settled();
  }

  bool ok() const { return failure_.empty(); }
  const std::string& failure() const { return failure_; }

 private:
  // --- randomness ---------------------------------------------------------------------
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  void add_workunit(int64_t id) {
    SimWorkunit s;
    WorkunitRow& wu = s.wu;
    wu.id = id;
    wu.appid = 1;
    wu.name = "wu" + std::to_string(id);
    wu.create_time = now_;
    wu.min_quorum = uniform(1, 3);
    wu.target_nresults = wu.min_quorum + uniform(0, 1);
    wu.max_error_results = uniform(0, 3);
    wu.max_total_results = wu.target_nresults + uniform(0, 6);
    wu.max_success_results = wu.min_quorum + uniform(0, 4);
    wu.delay_bound = uniform(100, 2000);
    wu.transition_time = now_;  // create_work: the transitioner makes the first results
    s.inputs = {"in_" + std::to_string(id), "shared_" + std::to_string(id % 3)};
    wus_.push_back(std::move(s));
  }

  // --- failure reporting --------------------------------------------------------------
  void fail(const SimWorkunit& s, const std::string& what) {
    if (!ok()) return;
    std::ostringstream out;
    out << "seed " << seed_ << ", now " << now_ << ", workunit " << s.wu.id << ": " << what << "\nhistory:\n";
    for (const std::string& h : s.history) out << "  " << h << "\n";
    out << "results:\n";
    for (const ResultRow& r : s.results) {
      out << "  " << r.id << " " << r.name << " server " << code(r.server_state) << " outcome "
          << code(r.outcome) << " validate " << code(r.validate_state) << " files "
          << code(r.file_delete_state) << " deadline " << r.report_deadline << "\n";
    }
    out << "wu: canonical " << s.wu.canonical_resultid << " error " << s.wu.error_mask << " assimilate "
        << code(s.wu.assimilate_state) << " files " << code(s.wu.file_delete_state) << " tt "
        << s.wu.transition_time << " need_validate " << s.wu.need_validate << " target "
        << s.wu.target_nresults << "\n";
    failure_ = out.str();
  }

  void check_invariants(SimWorkunit& s, const std::string& after_what) {
    s.history.push_back("t=" + std::to_string(now_) + " " + after_what);
    auto violations = check_workunit_invariants(s.wu, s.results, now_);
    if (!violations.empty()) fail(s, "after " + after_what + ":\n" + format_violations(violations));
  }

  // --- the scheduler and the clients (test scaffolding that obeys the law) -------------
  void random_event(bool draining) {
    const int pick = uniform(0, 99);
    if (pick < 25) {
      send_one();
    } else if (pick < 50) {
      report_one(draining);
    } else if (pick < 52) {
      couldnt_send_one();
    } else if (pick < 65) {
      now_ += chance(0.1) ? uniform(1000, 8000) : uniform(1, 400);
    } else if (pick < 75) {
      transitioner_pass();
    } else if (pick < 85) {
      validator_pass(draining);
    } else if (pick < 92) {
      assimilator_pass(draining);
    } else {
      file_deleter_pass(draining);
    }
  }

  template <class Pred>
  std::pair<SimWorkunit*, ResultRow*> pick_result(Pred pred) {
    std::vector<std::pair<SimWorkunit*, ResultRow*>> found;
    for (SimWorkunit& s : wus_) {
      for (ResultRow& r : s.results) {
        if (pred(s, r)) found.emplace_back(&s, &r);
      }
    }
    if (found.empty()) return {nullptr, nullptr};
    return found[static_cast<std::size_t>(uniform(0, static_cast<int>(found.size()) - 1))];
  }

  void send_one() {
    auto [s, r] = pick_result(
        [](const SimWorkunit&, const ResultRow& x) { return x.server_state == ServerState::Unsent; });
    if (s == nullptr) return;
    r->server_state = ServerState::InProgress;
    r->sent_time = now_;
    r->report_deadline = now_ + s->wu.delay_bound;
    r->hostid = uniform(1, 50);
    r->userid = r->hostid + 100;
    s->wu.transition_time = std::min(s->wu.transition_time, r->report_deadline);
    check_invariants(*s, "send " + std::to_string(r->id));
  }

  void couldnt_send_one() {
    auto [s, r] = pick_result(
        [](const SimWorkunit&, const ResultRow& x) { return x.server_state == ServerState::Unsent; });
    if (s == nullptr) return;
    r->server_state = ServerState::Over;
    r->outcome = Outcome::CouldntSend;
    s->wu.transition_time = now_;
    check_invariants(*s, "couldnt_send " + std::to_string(r->id));
  }

  void report_one(bool draining) {
    // Late reports (after the time-out) happen too, as BOINC's scheduler accepts them.
    const bool late = !draining && chance(0.1);
    auto [s, r] = pick_result([late](const SimWorkunit&, const ResultRow& x) {
      return late ? (x.server_state == ServerState::Over && x.outcome == Outcome::NoReply)
                  : x.server_state == ServerState::InProgress;
    });
    if (s == nullptr) return;
    if (late) ++counts_.late_reports;
    r->server_state = ServerState::Over;
    r->received_time = now_;
    const int kind = uniform(0, 99);
    if (kind < 20) {
      r->outcome = Outcome::ClientError;
      r->client_state = ClientState::ComputeError;
      r->exit_status = kind < 4 ? kExitAbortedViaGui : 1;
    } else {
      r->outcome = Outcome::Success;
      r->claimed_credit = uniform(1, 100);
      r->xml_doc_out = kind < 70   ? "right"
                       : kind < 85 ? "wrong" + std::to_string(uniform(1, 3))
                       : kind < 95 ? "right"
                                   : "garbage";
    }
    s->wu.transition_time = now_;
    check_invariants(*s, std::string(late ? "late " : "") + "report " + std::to_string(r->id) + " outcome " +
                             std::to_string(code(r->outcome)) + " " + r->xml_doc_out);
  }

  // --- the daemons: load, call the rule, write -----------------------------------------
  void apply_updates(SimWorkunit& s, const std::vector<ResultUpdate>& updates, const char* daemon) {
    for (const ResultUpdate& u : updates) {
      auto it = std::find_if(s.results.begin(), s.results.end(),
                             [&](const ResultRow& r) { return r.id == u.after.id; });
      if (it == s.results.end()) return fail(s, std::string(daemon) + " updated unknown result");
      if (it->server_state != u.before.server_state || it->outcome != u.before.outcome ||
          it->validate_state != u.before.validate_state) {
        return fail(s, std::string(daemon) + ": update's before differs from the row");
      }
      check_result_moves_forward(s, *it, u.after, daemon);
      if (u.after.validate_state == ValidateState::TooLate) ++counts_.too_late;
      if (u.after.outcome == Outcome::ValidateError) ++counts_.validate_errors;
      if (u.after.validate_state == ValidateState::Inconclusive) ++counts_.inconclusive;
      if (s.wu.canonical_resultid != 0 && u.before.validate_state != u.after.validate_state &&
          (u.after.validate_state == ValidateState::Valid ||
           u.after.validate_state == ValidateState::Invalid)) {
        ++counts_.stragglers_checked;
      }
      *it = u.after;
    }
  }

  static int server_rank(ServerState st) { return code(st); }  // 2 < 4 < 5

  void check_result_moves_forward(const SimWorkunit& s, const ResultRow& a, const ResultRow& b,
                                  const char* daemon) {
    const std::string where = std::string(daemon) + " on result " + std::to_string(a.id);
    if (server_rank(b.server_state) < server_rank(a.server_state)) {
      fail(s, where + ": server_state went back");
    }
    if (a.outcome != Outcome::Init && a.outcome != b.outcome &&
        !(a.outcome == Outcome::Success && b.outcome == Outcome::ValidateError)) {
      fail(s, where + ": outcome changed from " + std::to_string(code(a.outcome)));
    }
    const bool final_verdict =
        a.validate_state != ValidateState::Init && a.validate_state != ValidateState::Inconclusive;
    // The one way back (assimilator_rules.h): a withdrawn consensus is weighed again.
    const bool reopened =
        withdrawing_ && (b.validate_state == ValidateState::Init || b.validate_state == ValidateState::Error);
    if (final_verdict && a.validate_state != b.validate_state && !reopened) {
      fail(s, where + ": final validate_state changed");
    }
    if (code(b.file_delete_state) < code(a.file_delete_state)) {
      fail(s, where + ": file_delete_state went back");
    }
  }

  void check_workunit_moves_forward(const SimWorkunit& s, const WorkunitRow& a, const WorkunitRow& b,
                                    const char* daemon) {
    const std::string where = std::string(daemon) + " on workunit";
    if (a.canonical_resultid != 0 && a.canonical_resultid != b.canonical_resultid) {
      fail(s, where + ": canonical result changed");
    }
    if ((a.error_mask & ~b.error_mask) != 0) fail(s, where + ": error bit cleared");
    if (code(b.assimilate_state) < code(a.assimilate_state)) {
      fail(s, where + ": assimilate_state went back");
    }
    if (code(b.file_delete_state) < code(a.file_delete_state)) {
      fail(s, where + ": file_delete_state went back");
    }
    if (b.target_nresults < a.target_nresults) fail(s, where + ": target_nresults lowered");
  }

  bool transitioner_pass() {
    bool did = false;
    for (SimWorkunit& s : wus_) {
      if (!ok()) return false;
      if (s.wu.transition_time > now_) continue;
      did = true;
      TransitionPlan plan = plan_transition(s.wu, s.results, now_);
      check_workunit_moves_forward(s, s.wu, plan.workunit, "transitioner");
      if (plan.workunit.canonical_resultid != s.wu.canonical_resultid) {
        fail(s, "transitioner changed canonical_resultid");
      }
      counts_.timeouts += plan.counts.timed_out;
      apply_updates(s, plan.result_updates, "transitioner");
      s.wu = plan.workunit;
      for (ResultRow r : plan.new_results) {
        r.id = next_result_id_++;
        s.results.push_back(r);
      }
      if (s.wu.transition_time <= now_) fail(s, "transitioner left the workunit due at now");
      check_invariants(s, "transitioner (+" + std::to_string(plan.new_results.size()) + " new)");
    }
    return did;
  }

  bool validator_pass(bool draining) {
    FunctionComparator comparator(
        [this, draining](const ResultRow& r) {
          if (!draining && chance(0.03)) return ReadOutcome::TransientError;
          return r.xml_doc_out == "garbage" ? ReadOutcome::PermanentError : ReadOutcome::Ok;
        },
        [](const ResultRow& a, const ResultRow& b) {
          return a.xml_doc_out == b.xml_doc_out ? CompareOutcome::Match : CompareOutcome::Mismatch;
        });
    bool did = false;
    for (SimWorkunit& s : wus_) {
      if (!ok()) return false;
      if (!s.wu.need_validate) continue;
      did = true;
      ValidationPlan plan = plan_validation(s.wu, s.results, comparator, now_);
      check_workunit_moves_forward(s, s.wu, plan.workunit, "validator");
      if (s.wu.assimilate_state != AssimilateState::Init &&
          plan.workunit.assimilate_state != s.wu.assimilate_state) {
        fail(s, "validator re-triggered assimilation");
      }
      if (plan.retry_later) ++counts_.validator_retries;
      apply_updates(s, plan.result_updates, "validator");
      s.wu = plan.workunit;
      check_invariants(s, "validator" + std::string(plan.retry_later ? " (retry later)" : ""));
    }
    return did;
  }

  // The canonical result's files are found swapped after validation now and then (issue
  // 13): the assimilator withdraws it and the workunit goes back to validation.
  bool assimilator_pass(bool draining) {
    bool did = false;
    for (SimWorkunit& s : wus_) {
      if (!ok()) return false;
      if (s.wu.assimilate_state != AssimilateState::Ready) continue;
      did = true;
      const bool forged = s.wu.canonical_resultid != 0 && !draining && chance(0.15);
      AssimilationPlan plan = plan_assimilation(
          s.wu, s.results, forged ? CanonicalOutputs::Mismatch : CanonicalOutputs::Match, now_);
      if (plan.action == AssimilationAction::WithdrawCanonical) {
        ++counts_.withdrawn_canonicals;
        withdrawing_ = true;
        apply_updates(s, plan.result_updates, "assimilator");
        withdrawing_ = false;
        s.wu = plan.workunit;
        check_invariants(s, "assimilator withdrew the canonical result");
        continue;
      }
      if (plan.action != AssimilationAction::Assimilate) {
        fail(s, "assimilator did not assimilate");
        return false;
      }
      // BOINC's assimilator also sets transition_time = now, so the transitioner
      // triggers file deletion.
      check_workunit_moves_forward(s, s.wu, plan.workunit, "assimilator");
      s.wu = plan.workunit;
      ++s.assimilations;
      check_invariants(s, "assimilator");
    }
    return did;
  }

  // A row whose files failed to go waits out its back-off; when it fails again, the next
  // retry is recorded as the file deleter's shell does.
  bool waiting(const std::map<int64_t, FileDeleteRetry>& retries, int64_t id) const {
    auto it = retries.find(id);
    return it != retries.end() && now_ < it->second.next_time;
  }
  void note_failure(std::map<int64_t, FileDeleteRetry>& retries, int64_t id) {
    auto it = retries.find(id);
    retries[id] = next_file_delete_retry(it == retries.end() ? 0 : it->second.failures, now_);
    ++counts_.deletion_retries;
  }

  bool file_deleter_pass(bool draining) {
    // What db/file_store.h live_file_users reads: each input of a workunit still INIT.
    FileUsers users;
    for (const SimWorkunit& other : wus_) {
      if (other.wu.file_delete_state != FileDeleteState::Init) continue;
      for (const std::string& name : other.inputs) users[name].insert(other.wu.id);
    }
    bool did = false;
    for (SimWorkunit& s : wus_) {
      if (!ok()) return false;
      std::vector<StoredFile> inputs;
      for (const std::string& name : s.inputs) inputs.push_back(StoredFile{name, false});
      FileSelection selection =
          waiting(s.input_retry, s.wu.id)
              ? FileSelection{}
              : select_input_files(s.wu, inputs, live_references(s.wu.id, inputs, users));
      if (selection.eligible) {
        did = true;
        if (!selection.kept_shared.empty()) ++counts_.shared_inputs_kept;
        std::vector<FileAttempt> attempts;
        for (const std::string& name : selection.delete_now) {
          check_no_live_reference(s, name);
          const bool fails = !draining && chance(0.1);
          attempts.push_back(
              FileAttempt{name, fails ? DeleteAttempt::Failed : DeleteAttempt::Deleted, "simulated"});
        }
        FileDeletionDecision decision = decide_after_deletion("workunit", attempts);
        if (decision.retry) note_failure(s.input_retry, s.wu.id);
        s.wu.file_delete_state = decision.new_state;
        check_invariants(s, "file_deleter inputs");
      }
      for (ResultRow& r : s.results) {
        if (r.file_delete_state != FileDeleteState::Ready || waiting(s.output_retry, r.id)) continue;
        did = true;
        const std::vector<StoredFile> outputs{StoredFile{r.name + "_0", false}};
        FileSelection out = select_output_files(r, outputs, live_references(s.wu.id, outputs, users));
        std::vector<FileAttempt> attempts;
        for (const std::string& name : out.delete_now) {
          const bool fails = !draining && chance(0.1);
          attempts.push_back(
              FileAttempt{name, fails ? DeleteAttempt::Failed : DeleteAttempt::Deleted, "simulated"});
        }
        FileDeletionDecision decision = decide_after_deletion("result", attempts);
        if (decision.retry) note_failure(s.output_retry, r.id);
        r.file_delete_state = decision.new_state;
        check_invariants(s, "file_deleter outputs of " + std::to_string(r.id));
      }
    }
    return did;
  }

  // The law: an input goes only when every workunit using it has all results OVER and is
  // assimilated (file_delete_state no longer INIT says exactly that).
  void check_no_live_reference(const SimWorkunit& s, const std::string& name) {
    for (const SimWorkunit& other : wus_) {
      if (other.wu.file_delete_state != FileDeleteState::Init) continue;
      if (std::find(other.inputs.begin(), other.inputs.end(), name) != other.inputs.end()) {
        fail(s, "deleted input " + name + " still needed by workunit " + std::to_string(other.wu.id));
      }
    }
  }

  void run_daemons_until_quiet() {
    for (int i = 0; i < 100 && ok(); ++i) {
      bool did = transitioner_pass();
      did = validator_pass(true) || did;
      did = assimilator_pass(true) || did;
      did = file_deleter_pass(true) || did;
      if (!did) return;
    }
  }

  // --- the end state ------------------------------------------------------------------
  static bool has_outputs(const ResultRow& r) {
    return r.outcome == Outcome::ClientError || r.validate_state != ValidateState::Init;
  }

  bool settled(const SimWorkunit& s) const {
    if (s.wu.canonical_resultid == 0 && s.wu.error_mask == 0) return false;
    if (s.wu.transition_time != kTransitionNever || s.wu.need_validate) return false;
    if (s.wu.assimilate_state != AssimilateState::Done) return false;
    if (s.wu.file_delete_state != FileDeleteState::Done) return false;
    for (const ResultRow& r : s.results) {
      if (r.server_state != ServerState::Over) return false;
      if (has_outputs(r) && r.file_delete_state != FileDeleteState::Done) return false;
    }
    return true;
  }

  bool all_settled() const {
    return std::all_of(wus_.begin(), wus_.end(), [this](const SimWorkunit& s) { return settled(s); });
  }

  void check_settled() {
    for (SimWorkunit& s : wus_) {
      if (!settled(s)) return fail(s, "did not settle");
      if (s.assimilations != 1) {
        return fail(s, "assimilated " + std::to_string(s.assimilations) + " times");
      }
      for (const ResultRow& r : s.results) {
        if (r.outcome == Outcome::Success &&
            (r.validate_state == ValidateState::Init || r.validate_state == ValidateState::Inconclusive)) {
          return fail(s, "result " + std::to_string(r.id) + " left unvalidated");
        }
      }
      if (s.wu.canonical_resultid != 0) {
        ++counts_.with_canonical;
      } else {
        ++counts_.with_error;
      }
    }
  }

 public:
  const PathCounts& counts() const { return counts_; }

 private:
  PathCounts counts_;
  uint64_t seed_;
  std::mt19937_64 rng_;
  int64_t now_ = 1'000'000;
  int64_t next_result_id_ = 1;
  std::vector<SimWorkunit> wus_;
  std::string failure_;
  bool withdrawing_ = false;  // the assimilator is withdrawing a canonical result
};

TEST(BackendLifecycle, StateLaw_RandomLifecyclesKeepInvariantsAndSettle) {
  PathCounts total;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    World world(seed);
    world.run();
    ASSERT_TRUE(world.ok()) << world.failure();
    const PathCounts& c = world.counts();
    total.with_canonical += c.with_canonical;
    total.with_error += c.with_error;
    total.late_reports += c.late_reports;
    total.too_late += c.too_late;
    total.validate_errors += c.validate_errors;
    total.inconclusive += c.inconclusive;
    total.stragglers_checked += c.stragglers_checked;
    total.validator_retries += c.validator_retries;
    total.timeouts += c.timeouts;
    total.shared_inputs_kept += c.shared_inputs_kept;
    total.deletion_retries += c.deletion_retries;
    total.withdrawn_canonicals += c.withdrawn_canonicals;
  }
  // Every interesting path must actually be taken, or the test proves little.
  EXPECT_GT(total.with_canonical, 100);
  EXPECT_GT(total.with_error, 20);
  EXPECT_GT(total.late_reports, 0);
  EXPECT_GT(total.too_late, 0);
  EXPECT_GT(total.validate_errors, 0);
  EXPECT_GT(total.inconclusive, 0);
  EXPECT_GT(total.stragglers_checked, 0);
  EXPECT_GT(total.validator_retries, 0);
  EXPECT_GT(total.timeouts, 0);
  EXPECT_GT(total.shared_inputs_kept, 0);
  EXPECT_GT(total.deletion_retries, 0);
  EXPECT_GT(total.withdrawn_canonicals, 10);
  std::cout << "paths: canonical " << total.with_canonical << ", error " << total.with_error
            << ", late reports " << total.late_reports << ", too late " << total.too_late
            << ", validate errors " << total.validate_errors << ", inconclusive " << total.inconclusive
            << ", stragglers " << total.stragglers_checked << ", validator retries "
            << total.validator_retries << ", time-outs " << total.timeouts << ", shared inputs kept "
            << total.shared_inputs_kept << ", deletion retries " << total.deletion_retries
            << ", withdrawn canonicals " << total.withdrawn_canonicals << "\n";
}

}  // namespace
}  // namespace tharsis
