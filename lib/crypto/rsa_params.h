// Internal to lib/crypto: moving RSA keys between EVP_PKEY and their numbers (n, e, d,
// p, q, d mod p-1, d mod q-1, q^-1 mod p) through OpenSSL 3's parameter API, for the
// BOINC key format and for extracting a public half.
#pragma once

#include <openssl/bn.h>

#include <memory>

#include "lib/crypto/rsa_key.h"
#include "lib/result.h"

namespace tharsis::crypto_detail {

struct BignumFree {
  void operator()(BIGNUM* bn) const { BN_free(bn); }
};
using Bignum = std::unique_ptr<BIGNUM, BignumFree>;

struct RsaParams {
  Bignum n, e;                       // public
  Bignum d, p, q, dmp1, dmq1, iqmp;  // private; all null for a public key
};

// Reads the numbers of `key` (private ones stay null for a public-only key).
RsaParams rsa_params_of(const RsaKey& key);

// Builds a key: a key pair when d..iqmp are all set, a public key when all are null.
Result<RsaKey> rsa_key_from_params(const RsaParams& params);

}  // namespace tharsis::crypto_detail
