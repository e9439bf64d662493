// sched/lib/rpc/authenticate_plan.h: which requests are refused before and after the
// account lookup, and when the reply carries the project's code signing key.
#include <gtest/gtest.h>

#include "lib/crypto/boinc_key.h"
#include "lib/crypto/rsa_key.h"
#include "sched/lib/rpc/authenticate_plan.h"

namespace tharsis {
namespace {

TEST(SchedAuthenticatePlan, ANegativeSeqnoIsRefusedBeforeTheLookup) {
  auto refusal = seqno_refusal(-3);
  ASSERT_TRUE(refusal);
  EXPECT_NE(refusal->find("Invalid rpc_seqno -3"), std::string::npos);
  EXPECT_FALSE(seqno_refusal(0));
  EXPECT_FALSE(seqno_refusal(12));
}

TEST(SchedAuthenticatePlan, AnEmptyOrUnknownAuthenticatorIsRefused) {
  EXPECT_TRUE(account_refusal("", true));
  EXPECT_TRUE(account_refusal("abc", false));
  EXPECT_TRUE(account_refusal("", false));
  EXPECT_FALSE(account_refusal("abc", true));
  EXPECT_NE(account_refusal("abc", false)->find("account key"), std::string::npos);
}

TEST(SchedAuthenticatePlan, TheCodeSignKeyGoesOnlyToAClientWithoutIt) {
  auto key = generate_key_pair(1024);
  ASSERT_TRUE(key.ok());
  auto text = boinc_public_key_text(*key);
  ASSERT_TRUE(text.ok());
  EXPECT_TRUE(client_needs_code_sign_key("", *text));  // none yet
  EXPECT_FALSE(client_needs_code_sign_key(*text, *text));
  // The client strips and re-wraps the text it stores: the same key in other whitespace.
  std::string rewrapped;
  for (char c : *text) {
    if (c != '\n') rewrapped += c;
    if (c == '\n') rewrapped += "  \n";
  }
  EXPECT_FALSE(client_needs_code_sign_key(rewrapped, *text));
  auto other = generate_key_pair(1024);
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(client_needs_code_sign_key(*boinc_public_key_text(*other), *text));
  EXPECT_TRUE(client_needs_code_sign_key("not a key", *text));
}

}  // namespace
}  // namespace tharsis
