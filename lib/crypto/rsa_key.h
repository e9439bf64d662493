// RsaKey: an RSA key (private with its public half, or public only) held by OpenSSL 3's
// EVP_PKEY, with generation and PEM files. BOINC's own text key files are in
// lib/crypto/boinc_key.h; BOINC-compatible signatures in lib/crypto/boinc_signature.h.
#pragma once

#include <openssl/evp.h>

#include <memory>
#include <string>

#include "lib/result.h"

namespace tharsis {

// Immutable once made, so copies share one EVP_PKEY (cheap, thread-safe to read).
class RsaKey {
 public:
  RsaKey() = default;                  // empty: holds no key
  explicit RsaKey(EVP_PKEY* adopted);  // takes ownership

  bool empty() const { return !key_; }
  bool has_private() const;  // false for empty and public-only keys
  int bits() const;          // modulus size; 0 when empty
  EVP_PKEY* get() const { return key_.get(); }

 private:
  std::shared_ptr<EVP_PKEY> key_;
};

// A fresh RSA key pair with public exponent 65537. `bits` must be 512..16384. Note that
// BOINC's key files and the stock BOINC client hold at most 1024-bit keys
// (R_RSA_PUBLIC_KEY), so keys meant for BOINC must be generated with bits <= 1024.
Result<RsaKey> generate_key_pair(int bits = 2048);

// The public half of `key` as a public-only key (no private parameters).
Result<RsaKey> public_part(const RsaKey& key);

// PEM files: private keys as PKCS#8 ("BEGIN PRIVATE KEY", unencrypted, mode 0600), public
// keys as SubjectPublicKeyInfo ("BEGIN PUBLIC KEY", mode 0644). Written atomically.
Status save_private_key_pem(const RsaKey& key, const std::string& path);
Status save_public_key_pem(const RsaKey& key, const std::string& path);
Result<RsaKey> load_private_key_pem(const std::string& path);
Result<RsaKey> load_public_key_pem(const std::string& path);

// True when both keys hold the same public modulus and exponent.
bool same_public_key(const RsaKey& a, const RsaKey& b);

}  // namespace tharsis
