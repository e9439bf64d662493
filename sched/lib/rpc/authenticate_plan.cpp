// Implementation of sched/lib/rpc/authenticate_plan.h.
#include "sched/lib/rpc/authenticate_plan.h"

#include <cctype>

#include "lib/crypto/boinc_key.h"
#include "sched/lib/host_identity.h"

namespace tharsis {
namespace {

std::string without_whitespace(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

// BOINC key texts compared as the keys they stand for (the client strips and re-wraps
// the text it stores). An empty request key never matches: the client has none yet.
bool same_key_text(const std::string& from_client, const std::string& ours) {
  if (from_client.empty()) return false;
  if (without_whitespace(from_client) == without_whitespace(ours)) return true;  // the usual case, no parsing
  auto theirs = parse_boinc_public_key(from_client, "client's code_sign_key");
  auto mine = parse_boinc_public_key(ours, "code_sign_public");
  return theirs.ok() && mine.ok() && same_public_key(*theirs, *mine);
}

}  // namespace

std::optional<std::string> seqno_refusal(int rpc_seqno) {
  if (judge_rpc_seqno(rpc_seqno, std::nullopt) != SeqnoVerdict::Refused) return std::nullopt;
  return "Invalid rpc_seqno " + std::to_string(rpc_seqno) +
         ": a client counts its requests up from 0. To fix, remove and add this project.";
}

std::optional<std::string> account_refusal(const std::string& authenticator, bool account_found) {
  if (!authenticator.empty() && account_found) return std::nullopt;
  return "Invalid or missing account key. To fix, remove and add this project.";
}

bool client_needs_code_sign_key(const std::string& from_client, const std::string& ours) {
  return !same_key_text(from_client, ours);
}

}  // namespace tharsis
