// Implementation of lib/crypto/rsa_key.h and lib/crypto/rsa_params.h over the OpenSSL 3
// EVP and OSSL_PARAM APIs (no deprecated RSA_* calls).
#include "lib/crypto/rsa_key.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "lib/crypto/rsa_params.h"
#include "lib/text_file.h"

namespace tharsis {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* ctx) const { EVP_PKEY_CTX_free(ctx); }
};
struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct ParamBldFree {
  void operator()(OSSL_PARAM_BLD* bld) const { OSSL_PARAM_BLD_free(bld); }
};
struct ParamFree {
  void operator()(OSSL_PARAM* params) const { OSSL_PARAM_free(params); }
};
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;
using Bio = std::unique_ptr<BIO, BioFree>;

// The first OpenSSL error as text, and an empty queue afterwards.
std::string openssl_error() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char buffer[256];
  ERR_error_string_n(code, buffer, sizeof buffer);
  return buffer;
}

std::string bio_contents(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(size));
}

}  // namespace

RsaKey::RsaKey(EVP_PKEY* adopted) : key_(adopted, PkeyFree{}) {}

bool RsaKey::has_private() const {
  if (!key_) return false;
  BIGNUM* d = nullptr;
  bool present = EVP_PKEY_get_bn_param(key_.get(), OSSL_PKEY_PARAM_RSA_D, &d) == 1 && d;
  BN_clear_free(d);
  ERR_clear_error();
  return present;
}

int RsaKey::bits() const { return key_ ? EVP_PKEY_get_bits(key_.get()) : 0; }

Result<RsaKey> generate_key_pair(int bits) {
  if (bits < 512 || bits > 16384) {
    return make_error("RSA key size: expected 512..16384 bits, found " + std::to_string(bits));
  }
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) <= 0 ||
      EVP_PKEY_CTX_set_rsa_keygen_bits(ctx.get(), bits) <= 0 || EVP_PKEY_generate(ctx.get(), &raw) <= 0) {
    return make_error("RSA key generation failed: " + openssl_error());
  }
  return RsaKey(raw);
}

Result<RsaKey> public_part(const RsaKey& key) {
  if (key.empty()) return make_error("public_part: no key");
  crypto_detail::RsaParams params = crypto_detail::rsa_params_of(key);
  crypto_detail::RsaParams pub;
  pub.n = std::move(params.n);
  pub.e = std::move(params.e);
  return crypto_detail::rsa_key_from_params(pub);
}

Status save_private_key_pem(const RsaKey& key, const std::string& path) {
  if (!key.has_private()) return make_error(path + ": expected a private key, found a public one");
  Bio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return make_error(path + ": cannot encode private key: " + openssl_error());
  }
  return write_text_file(path, bio_contents(bio.get()), 0600);
}

Status save_public_key_pem(const RsaKey& key, const std::string& path) {
  if (key.empty()) return make_error(path + ": no key to save");
  Bio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PUBKEY(bio.get(), key.get()) != 1) {
    return make_error(path + ": cannot encode public key: " + openssl_error());
  }
  return write_text_file(path, bio_contents(bio.get()), 0644);
}

namespace {

Result<RsaKey> load_pem(const std::string& path, bool want_private) {
  Result<std::string> text = read_text_file(path);
  if (!text) return make_error(text.error());
  Bio bio(BIO_new_mem_buf(text->data(), static_cast<int>(text->size())));
  EVP_PKEY* raw = want_private ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
                               : PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr);
  if (!raw) {
    return make_error(path + ": expected a PEM " + (want_private ? "private" : "public") +
                      " key: " + openssl_error());
  }
  RsaKey key(raw);
  if (!EVP_PKEY_is_a(raw, "RSA")) return make_error(path + ": expected an RSA key");
  return key;
}

}  // namespace

Result<RsaKey> load_private_key_pem(const std::string& path) { return load_pem(path, true); }
Result<RsaKey> load_public_key_pem(const std::string& path) { return load_pem(path, false); }

bool same_public_key(const RsaKey& a, const RsaKey& b) {
  if (a.empty() || b.empty()) return false;
  bool equal = EVP_PKEY_eq(a.get(), b.get()) == 1;
  ERR_clear_error();
  return equal;
}

namespace crypto_detail {

RsaParams rsa_params_of(const RsaKey& key) {
  RsaParams out;
  auto get = [&key](const char* name, Bignum& into) {
    BIGNUM* bn = nullptr;
    if (EVP_PKEY_get_bn_param(key.get(), name, &bn) == 1) into.reset(bn);
  };
  get(OSSL_PKEY_PARAM_RSA_N, out.n);
  get(OSSL_PKEY_PARAM_RSA_E, out.e);
  get(OSSL_PKEY_PARAM_RSA_D, out.d);
  get(OSSL_PKEY_PARAM_RSA_FACTOR1, out.p);
  get(OSSL_PKEY_PARAM_RSA_FACTOR2, out.q);
  get(OSSL_PKEY_PARAM_RSA_EXPONENT1, out.dmp1);
  get(OSSL_PKEY_PARAM_RSA_EXPONENT2, out.dmq1);
  get(OSSL_PKEY_PARAM_RSA_COEFFICIENT1, out.iqmp);
  ERR_clear_error();  // a public key has no private numbers: not an error
  return out;
}

Result<RsaKey> rsa_key_from_params(const RsaParams& params) {
  if (!params.n || !params.e) return make_error("RSA key: modulus or exponent missing");
  bool is_private = params.d && params.p && params.q && params.dmp1 && params.dmq1 && params.iqmp;
  std::unique_ptr<OSSL_PARAM_BLD, ParamBldFree> bld(OSSL_PARAM_BLD_new());
  bool pushed = bld && OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, params.n.get()) &&
                OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, params.e.get());
  if (pushed && is_private) {
    pushed = OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_D, params.d.get()) &&
             OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_FACTOR1, params.p.get()) &&
             OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_FACTOR2, params.q.get()) &&
             OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_EXPONENT1, params.dmp1.get()) &&
             OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_EXPONENT2, params.dmq1.get()) &&
             OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_COEFFICIENT1, params.iqmp.get());
  }
  if (!pushed) return make_error("RSA key: cannot build parameters: " + openssl_error());
  std::unique_ptr<OSSL_PARAM, ParamFree> ossl_params(OSSL_PARAM_BLD_to_param(bld.get()));
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!ossl_params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, is_private ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY,
                        ossl_params.get()) <= 0) {
    return make_error("RSA key: OpenSSL rejected the numbers: " + openssl_error());
  }
  return RsaKey(raw);
}

}  // namespace crypto_detail
}  // namespace tharsis
