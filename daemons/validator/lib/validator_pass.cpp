// Implementation of daemons/validator/lib/validator_pass.h.
#include "daemons/validator/lib/validator_pass.h"

#include "daemons/validator/lib/credit_fold.h"
#include "daemons/validator/lib/file_comparators.h"
#include "daemons/validator/lib/report_checking_comparator.h"
#include "daemons/validator/validator_rules.h"
#include "db/app_store.h"
#include "db/workunit_store.h"
#include "lib/daemon/batch_commit.h"
#include "lib/daemon/cursor_read.h"
#include "lib/log.h"
#include "lib/work/output_files.h"

namespace tharsis {

ResultComparator& ValidatorPass::comparator_for(Database& db, int64_t appid) {
  auto it = comparators_.find(appid);
  if (it != comparators_.end()) return *it->second;
  auto app = fetch_app(db, appid);
  std::string name = app ? app->comparator : "bitwise";
  OutputLocator locate = [this](const ResultRow& r) { return output_file_paths(config_, r); };
  auto comparator = make_comparator(name, locate);
  if (!comparator.ok()) {
    log_error("app ", appid, ": ", comparator.error(), "; using bitwise");
    comparator = make_bitwise_comparator(locate);
  }
  // Whatever the app's comparator, a result's outputs count only if they are what it reported.
  auto checked = make_report_checking_comparator(std::move(*comparator), locate);
  return *comparators_.emplace(appid, std::move(checked)).first->second;
}

bool ValidatorPass::plan_in_transaction(Database& d, int64_t wu_id, int64_t now, PlannedWrites& writes) {
  auto [wu, results] = locked_.load(d, wu_id);
  if (!wu || !wu->need_validate) return false;
  ValidationPlan plan = plan_validation(*wu, results, comparator_for(d, wu->appid), now);
  writes.result_updates.insert(writes.result_updates.end(), plan.result_updates.begin(),
                               plan.result_updates.end());
  // need_validate is not in the guard: it is this daemon's own flag.
  writes.workunit_updates.push_back(WorkunitUpdate{*wu, std::move(plan.workunit)});
  for (const auto& grant : plan.credit_grants) {
    writes.credits.push_back(CreditChange{grant.host_id, grant.user_id, grant.credit});
  }
  for (const auto& note : plan.notes) log_debug("workunit ", wu_id, ": ", note);
  return true;
}

int ValidatorPass::validate_batch(Database& db, const std::vector<int64_t>& wu_ids, int64_t now,
                                  int per_commit, const std::function<bool()>& stop) {
  return commit_workunit_sets(
      db, wu_ids, per_commit, locked_,
      [&](Database& d, int64_t id, PlannedWrites& writes) { return plan_in_transaction(d, id, now, writes); },
      stop);
}

bool ValidatorPass::validate_one(Database& db, int64_t wu_id, int64_t now) {
  return validate_batch(db, {wu_id}, now, 1, {}) == 1;
}

int ValidatorPass::do_pass(Database& db, const DaemonContext& context, int64_t now) {
  // Units read and compare files: stop between batches.
  std::vector<int64_t> ids =
      read_from_cursor(cursor_, context.batch, [&](int64_t after, int64_t upto, int n) {
        return fetch_need_validate_ids(db, context.shard, n, after, upto);
      });
  int validated = validate_batch(db, ids, now, context.options.units_per_commit,
                                 [&] { return context.stop_requested(); });
  // The credit those batches granted (and any left by an earlier pass: a host an RPC held,
  // a pass killed after its commit) is added to the totals in transactions of its own.
  fold_pending_credit(db);
  return validated;
}

}  // namespace tharsis
