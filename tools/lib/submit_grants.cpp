// Implementation of tools/lib/submit_grants.h.
#include "tools/lib/submit_grants.h"

#include "db/app_store.h"
#include "db/submit_grant_store.h"

namespace tharsis {

Result<std::string> change_submit_grant(Database& db, const GrantChange& change) {
  int64_t user_id = change.user_id != 0 ? change.user_id : find_user_id_by_email(db, change.email);
  if (user_id == 0 || !user_exists(db, user_id)) {
    return make_error("no account " + (change.user_id != 0 ? std::to_string(change.user_id) : change.email));
  }
  std::vector<int64_t> app_ids;
  for (const auto& name : change.apps) {
    auto app = fetch_app_by_name(db, name);
    if (!app) return make_error("no app named '" + name + "'");
    app_ids.push_back(app->id);
  }
  if (!change.revoke && !change.all_apps && app_ids.empty() && change.max_jobs_in_progress < 0) {
    return make_error("nothing to grant: give --all or --app NAME");
  }
  return db.transaction([&](Database& d) -> Result<std::string> {
    if (change.revoke) {
      if (app_ids.empty() && !change.all_apps) {
        remove_submit_grants(d, user_id);
      } else {
        for (int64_t app : app_ids) remove_app_grant(d, user_id, app);
        if (change.all_apps) {
          if (auto grant = fetch_submit_grant(d, user_id)) {
            grant->submit_all = false;
            put_submit_grant(d, *grant);
          }
        }
      }
    } else {
      SubmitGrant grant = fetch_submit_grant(d, user_id).value_or(SubmitGrant{user_id});
      if (change.all_apps) grant.submit_all = true;
      if (change.max_jobs_in_progress >= 0) grant.max_jobs_in_progress = change.max_jobs_in_progress;
      put_submit_grant(d, grant);
      for (int64_t app : app_ids) add_app_grant(d, user_id, app);
    }
    auto grant = fetch_submit_grant(d, user_id);
    if (!grant) return "account " + std::to_string(user_id) + ": no remote submission";
    std::string out = "account " + std::to_string(user_id) + ": may submit to ";
    if (grant->submit_all) {
      out += "all apps";
    } else {
      std::vector<int64_t> listed = fetch_granted_apps(d, user_id);
      if (listed.empty()) out += "no app (may query its batches)";
      for (size_t i = 0; i < listed.size(); ++i) {
        auto app = fetch_app(d, listed[i]);
        out += (i ? ", " : "") + (app ? app->name : std::to_string(listed[i]));
      }
    }
    if (grant->max_jobs_in_progress > 0)
      out += "; at most " + std::to_string(grant->max_jobs_in_progress) + " jobs in progress";
    return out;
  });
}

}  // namespace tharsis
