// Pure decisions of the scheduler RPC's choose work step (choose_work_step.h), around
// work_selection.h's choose_work: whether the request asks for work, the host as the
// selection sees it, the send query's filter, the order of claims, what a round of claims
// leaves to cover, whether to read candidates again and how many, and the message of a
// reply without work.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "db/rows.h"
#include "db/send_store.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/protocol/scheduler_request.h"
#include "sched/lib/work_selection.h"

namespace tharsis {

// The best few candidates cover most requests; only when they do not is the wide window
// read (reading it every time was most of an RPC's database work). The first read takes
// between kFewestFirstCandidates and kFirstCandidates (first_window).
constexpr int kFewestFirstCandidates = 4;
constexpr int kFirstCandidates = 16;
constexpr int kCandidatesPerRequest = 200;
constexpr int kClaimRounds = 16;  // each round drops the results lost to a concurrent request

// The seconds of work the request asks for (the newer field, or the older one).
double requested_seconds(const SchedulerRequest& req);
bool asks_for_work(const SchedulerRequest& req);

// The host as work selection sees it: its platforms, memory, disk, speed (1e9 flops when
// unknown), CPUs (at least 1), today's sends and quota, the workunits of the results it
// holds and the files it has.
HostForScheduling scheduling_view(const HostRow& host, const std::vector<std::string>& platforms,
                                  double request_seconds, const std::vector<HostResultRow>& in_progress,
                                  const std::vector<HeldFile>& held_files);

// The send query's filter for this host (db/send_store.h): the same limits, applied while
// the queue is read.
SendFilter send_filter(const HostForScheduling& view, std::vector<int64_t> apps_not_runnable, int64_t now);

// A candidate row as work selection sees it; `platform`: that of the version that would
// run it ("" when none).
CandidateResult candidate_of(const SendCandidateRow& row, const std::string& platform);

// Claims go in workunit order, one order for every scheduler process, so two that claim
// overlapping sets wait for each other instead of deadlocking.
std::vector<CandidateResult> claim_order(std::vector<CandidateResult> chosen);

// After a round's claims: the results `won` by this request, and the workunits the host
// turned out to have `had` a result of. Each chosen result is dropped from later rounds;
// a workunit the host had is not chosen again; what a won send covers no longer needs
// covering (request seconds, disk, today's count, the reply's room). Returns the results
// won, in the order chosen (the order they go into the reply).
std::vector<int64_t> settle_round(const std::vector<CandidateResult>& chosen, const std::set<int64_t>& won,
                                  const std::set<int64_t>& had, HostForScheduling& view,
                                  SelectionLimits& limits, std::set<int64_t>& gone);

// The median rsc_fpops_est of a read's candidates (0 for none): the queue head's job size.
double head_job_fpops(const std::vector<CandidateResult>& candidates);

// The first read's window: twice the jobs of the queue head's size that the request can
// still take (its seconds on its CPUs, the reply's room), at least kFewestFirstCandidates
// and at most kFirstCandidates, which is also the window when the head's size is unknown
// (`head_job_fpops` 0: a CGI, a FastCGI process's first request). Every candidate read is
// locked until the commit, and every row locked is one the other hosts' reads walk past:
// a host asking for one job locks a few rows, not sixteen.
int first_window(const HostForScheduling& view, const SelectionLimits& limits, double head_job_fpops);

// After a round: stop, or read candidates again (a lost claim means the list is stale:
// others sent from it since it was read, many times over when this process was not
// scheduled for a while), from a window widened when the first one held too little: a
// small first window to kFirstCandidates, that one to kCandidatesPerRequest.
struct NextRound {
  bool stop = false;
  int window = kFirstCandidates;  // of the next read
};
NextRound next_round(const HostForScheduling& view, const SelectionLimits& limits, const Selection& selection,
                     size_t won, size_t candidates_read, int window);

// The query's filter for "is any unsent work left that the host never had a result of, if
// only its app had a version for it": the host and the apps it cannot run, no other bound.
SendFilter apps_only_filter(int64_t host_id, const std::vector<int64_t>& apps_not_runnable);

// The message of a reply without new work.
ReplyMessage no_work_message(bool quota_reached, bool only_unrunnable_work, const std::string& platform_name);

}  // namespace tharsis
