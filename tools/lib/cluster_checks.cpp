// Implementation of tools/lib/cluster_checks.h.
#include "tools/lib/cluster_checks.h"

#include <map>
#include <set>

#include "db/cluster_store.h"
#include "db/workunit_store.h"
#include "lib/recluster/task_io.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"

namespace tharsis {
namespace {

// The task ids a live job's input file lists, or an error.
Result<std::vector<int64_t>> listed_tasks(const ProjectConfig& config, const WorkunitRow& wu) {
  auto files = file_infos_in(wu.xml_doc);
  if (!files.ok()) return make_error(files.error());
  if (files->empty()) return make_error("no input file");
  auto text = read_text_file(fanout_path(config.download_dir, files->front().name, config.uldl_dir_fanout));
  if (!text.ok()) return make_error(text.error());
  auto list = parse_task_list(*text);
  if (!list.ok()) return make_error(list.error());
  std::vector<int64_t> ids;
  for (const auto& t : *list) ids.push_back(t.id);
  return ids;
}

}  // namespace

ClusterCounts check_cluster_tasks(Database& db, const ProjectConfig& config,
                                  std::vector<std::string>& violations) {
  const auto add = [&](const std::string& rule, const std::string& message) {
    violations.push_back("[" + rule + "] " + message);
  };
  ClusterCounts counts;
  std::map<int64_t, ClusterJobRow> jobs;
  for (int64_t after = 0;;) {
    auto page = fetch_cluster_jobs_after(db, after, 1000);
    if (page.empty()) break;
    for (auto& j : page) jobs[j.workunitid] = j;
    after = page.back().workunitid;
  }
  std::map<int64_t, std::vector<int64_t>> in_job;  // workunit -> tasks IN_JOB of it
  for (int64_t after = 0;;) {
    auto page = fetch_cluster_tasks_after(db, after, 1000);
    if (page.empty()) break;
    for (const auto& t : page) {
      ++counts.tasks;
      const std::string task = "cluster task " + std::to_string(t.id);
      const auto job = jobs.find(t.workunitid);
      switch (t.state) {
        case ClusterTaskState::Waiting:
          ++counts.waiting;
          if (t.workunitid != 0)
            add("cluster_task_place", task + " is WAITING but names job " + std::to_string(t.workunitid));
          break;
        case ClusterTaskState::InJob:
          ++counts.in_jobs;
          in_job[t.workunitid].push_back(t.id);
          if (job == jobs.end() || job->second.state != ClusterJobState::Live) {
            add("cluster_task_place",
                task + " is IN_JOB of " + std::to_string(t.workunitid) + ", not a live job");
          }
          break;
        case ClusterTaskState::Done:
          ++counts.done;
          if (job == jobs.end() || job->second.state != ClusterJobState::Settled) {
            add("cluster_task_place",
                task + " is DONE by " + std::to_string(t.workunitid) + ", not a settled job");
          }
          break;
        default:
          add("cluster_task_place", task + " has unknown state " + std::to_string(code(t.state)));
      }
    }
    after = page.back().id;
  }
  for (const auto& [wu_id, job] : jobs) {
    const std::string what = "clustered job " + std::to_string(wu_id);
    const auto& tasks = in_job[wu_id];
    auto wu = fetch_workunit(db, wu_id);
    if (!wu) {
      add("cluster_job_workunit", what + " has no workunit");
      continue;
    }
    const bool assimilated = wu->assimilate_state == AssimilateState::Done;
    if (job.state == ClusterJobState::Live) {
      ++counts.live_jobs;
      counts.live_job_slots += job.k;
      if (assimilated) add("cluster_job_workunit", what + " is LIVE but its workunit is assimilated");
      if (static_cast<int64_t>(tasks.size()) != job.k) {
        add("cluster_job_tasks", what + " expected k=" + std::to_string(job.k) + " tasks IN_JOB, found " +
                                     std::to_string(tasks.size()));
      }
      auto listed = listed_tasks(config, *wu);
      if (!listed.ok()) {
        add("cluster_job_tasks", what + " input: " + listed.error());
      } else if (std::set<int64_t>(listed->begin(), listed->end()) !=
                     std::set<int64_t>(tasks.begin(), tasks.end()) ||
                 listed->size() != tasks.size()) {
        add("cluster_job_tasks", what + " input lists " + std::to_string(listed->size()) +
                                     " tasks that differ from its " + std::to_string(tasks.size()) +
                                     " tasks IN_JOB");
      }
    } else {
      ++counts.settled_jobs;
      if (!assimilated) add("cluster_job_workunit", what + " is SETTLED but its workunit is not assimilated");
      if (!tasks.empty())
        add("cluster_job_tasks", what + " is SETTLED but holds " + std::to_string(tasks.size()) + " tasks");
    }
  }
  if (counts.tasks != counts.waiting + counts.in_jobs + counts.done ||
      counts.in_jobs != counts.live_job_slots) {
    add("cluster_task_count", "tasks " + std::to_string(counts.tasks) + " = waiting " +
                                  std::to_string(counts.waiting) + " + in jobs " +
                                  std::to_string(counts.in_jobs) + " + done " + std::to_string(counts.done) +
                                  "; live job slots " + std::to_string(counts.live_job_slots));
  }
  return counts;
}

}  // namespace tharsis
