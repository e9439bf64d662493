// Implementation of lib/crypto/openssl_setup.h.
#include "lib/crypto/openssl_setup.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

namespace tharsis {

bool set_up_openssl_for_short_runs() {
  bool initialised = OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr) == 1;
  // Before any random byte is drawn: the generators are made on first use, of this type.
  bool drbg_set = RAND_set_DRBG_type(nullptr, "HASH-DRBG", nullptr, nullptr, "SHA256") == 1;
  return initialised && drbg_set;
}

}  // namespace tharsis
