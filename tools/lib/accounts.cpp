// Implementation of tools/lib/accounts.h.
#include "tools/lib/accounts.h"

#include <openssl/rand.h>

#include "db/user_store.h"
#include "lib/crypto/md5.h"

namespace tharsis {

Result<std::string> new_authenticator() {
  // As BOINC makes them: the MD5 of fresh random bytes, as hex.
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1)
    return make_error("no cryptographic randomness for an authenticator");
  return md5_hex(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

Result<UserRow> create_account(Database& db, const std::string& name, const std::string& email, int64_t now) {
  if (name.empty()) return make_error("account: expected a name, found nothing");
  if (email.find('@') == std::string::npos) {
    return make_error("account: expected an email address, found '" + email + "'");
  }
  auto authenticator = new_authenticator();
  if (!authenticator.ok()) return make_error(authenticator.error());
  UserRow user;
  user.name = name;
  user.email_addr = email;
  user.authenticator = *authenticator;
  user.create_time = now;
  user.id = insert_user(db, user);
  return user;
}

}  // namespace tharsis
