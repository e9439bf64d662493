// Implementation of sched/lib/rpc/host_plan.h.
#include "sched/lib/rpc/host_plan.h"

#include "lib/protocol/utf8.h"
#include "sched/lib/host_identity.h"

namespace tharsis {
namespace {

constexpr size_t kHostTextChars = 254;

}  // namespace

NamedHost judge_named_host(const std::optional<HostRow>& named, int64_t user_id, int request_seqno) {
  if (!named || named->userid != user_id) return NamedHost::NotThisAccount;
  if (judge_rpc_seqno(request_seqno, named->rpc_seqno) == SeqnoVerdict::CopiedState)
    return NamedHost::CopiedState;
  return NamedHost::Use;
}

std::string host_text(const std::string& text) {
  return std::string(utf8_prefix_chars(text, kHostTextChars));
}

HostRow describe_host(std::optional<HostRow> found, const SchedulerRequest& req, int64_t user_id,
                      int64_t now) {
  HostRow h = found.value_or(HostRow{});
  if (h.id == 0) h.create_time = now;
  h.userid = user_id;
  // The reply announces every host id but the one the request named (reply_step.h).
  h.rpc_seqno = rpc_seqno_to_store(req.rpc_seqno, h.id == 0 || h.id != req.hostid);
  h.rpc_time = now;
  h.domain_name = host_text(req.host.domain_name);
  h.host_cpid = host_text(req.host.host_cpid);
  h.platform_name = host_text(req.platform_name);
  h.p_ncpus = req.host.p_ncpus;
  h.p_vendor = host_text(req.host.p_vendor);
  h.p_model = host_text(req.host.p_model);
  h.p_fpops = req.host.p_fpops;
  h.p_iops = req.host.p_iops;
  h.os_name = host_text(req.host.os_name);
  h.os_version = host_text(req.host.os_version);
  h.m_nbytes = req.host.m_nbytes;
  h.m_swap = req.host.m_swap;
  h.d_total = req.host.d_total;
  h.d_free = req.host.d_free;
  if (h.nresults_day != static_cast<int>(now / 86400)) h.nresults_today = 0;  // a new day's quota
  return h;
}

HostRowWrite plan_host_row_write(bool host_created, bool asks_for_work) {
  if (host_created) return HostRowWrite::Inserted;
  return asks_for_work ? HostRowWrite::WithFirstClaim : HostRowWrite::WithReports;
}

}  // namespace tharsis
