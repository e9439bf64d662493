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

void ResultSender::load(const std::vector<int64_t>& result_ids,
                        const std::map<int64_t, SendDetailsRow>& known) {
  loaded_.clear();
  std::vector<int64_t> unknown;
  for (int64_t id : result_ids) {
    auto it = known.find(id);
    if (it == known.end()) {
      unknown.push_back(id);
    } else {
      loaded_.emplace(id, it->second);
    }
  }
  for (auto& details : fetch_send_details(db_, unknown)) {
    int64_t id = details.result_id;
    loaded_.emplace(id, std::move(details));
  }
  for (const auto& [id, details] : loaded_)
    versions_.for_app(details.appid);  // read now if due, not after the commit
}

std::vector<int64_t> ResultSender::add(const std::vector<int64_t>& result_ids) {
  std::vector<int64_t> added;
  for (int64_t id : result_ids) {
    auto it = loaded_.find(id);
    if (it == loaded_.end()) continue;
    const auto& choice = versions_.for_app(it->second.appid);
    if (choice.version && builder_.add_result(it->second, *choice.app, *choice.version)) added.push_back(id);
  }
  return added;
}

}  // namespace tharsis
