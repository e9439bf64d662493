// Implementation of sched/lib/rpc/result_sender.h.
#include "sched/lib/rpc/result_sender.h"

#include "db/send_store.h"

namespace tharsis {

std::vector<std::string> platforms_of(const SchedulerRequest& req) {
  std::vector<std::string> platforms{req.platform_name};
  platforms.insert(platforms.end(), req.alt_platforms.begin(), req.alt_platforms.end());
  return platforms;
}

const AppVersionCache::Choice& HostVersions::for_app(int64_t appid) {
  auto it = chosen_.find(appid);
  if (it == chosen_.end()) it = chosen_.emplace(appid, cache_.choose(db_, appid, platforms_, now_)).first;
  return it->second;
}

std::vector<int64_t> ResultSender::add(const std::vector<int64_t>& result_ids) {
  std::vector<int64_t> added;
  for (const auto& details : fetch_send_details(db_, result_ids)) {
    const auto& choice = versions_.for_app(details.appid);
    if (choice.version && builder_.add_result(details, *choice.app, *choice.version))
      added.push_back(details.result_id);
  }
  return added;
}

}  // namespace tharsis
