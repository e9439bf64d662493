// Implementation of lib/crypto/boinc_key.h: fixed-width big-endian fields in hex, the
// layout of BOINC's R_RSA_PUBLIC_KEY / R_RSA_PRIVATE_KEY after their `bits` field.
#include "lib/crypto/boinc_key.h"

#include <openssl/err.h>
#include <sys/stat.h>

#include <cctype>
#include <charconv>
#include <vector>

#include "lib/crypto/boinc_signature.h"
#include "lib/crypto/rsa_params.h"
#include "lib/text_file.h"

namespace tharsis {
namespace {

using crypto_detail::Bignum;
using crypto_detail::RsaParams;

constexpr size_t kModulusLen = kBoincMaxKeyBits / 8;             // 128
constexpr size_t kPrimeLen = kModulusLen / 2;                    // 64
constexpr size_t kPublicLen = 2 * kModulusLen;                   // 256
constexpr size_t kPrivateLen = 3 * kModulusLen + 5 * kPrimeLen;  // 704

// Appends `bn` big-endian, left-padded with zeros to `width` bytes.
bool append_fixed(std::vector<uint8_t>& out, const BIGNUM* bn, size_t width) {
  if (!bn || static_cast<size_t>(BN_num_bytes(bn)) > width) return false;
  size_t at = out.size();
  out.resize(at + width);
  return BN_bn2binpad(bn, out.data() + at, static_cast<int>(width)) == static_cast<int>(width);
}

Bignum read_fixed(const std::vector<uint8_t>& bytes, size_t& at, size_t width) {
  Bignum bn(BN_bin2bn(bytes.data() + at, static_cast<int>(width), nullptr));
  at += width;
  return bn;
}

// The private numbers agree with each other: n = pq, d inverts e modulo p-1 and q-1,
// and the CRT values are d mod p-1, d mod q-1 and q^-1 mod p. This is OpenSSL's key
// check without its primality tests, which cost milliseconds — paid by every CGI start
// of the scheduler, which loads the upload key per request.
bool private_numbers_agree(const RsaParams& k) {
  for (const Bignum* number : {&k.n, &k.e, &k.d, &k.p, &k.q, &k.dmp1, &k.dmq1, &k.iqmp}) {
    if (!*number) return false;
  }
  std::unique_ptr<BN_CTX, void (*)(BN_CTX*)> ctx(BN_CTX_new(), BN_CTX_free);
  Bignum t(BN_new()), pm1(BN_new()), qm1(BN_new());
  if (!ctx || !t || !pm1 || !qm1 || BN_is_zero(k.p.get()) || BN_is_zero(k.q.get())) return false;
  auto equals = [&](const BIGNUM* value, const BIGNUM* expected) { return BN_cmp(value, expected) == 0; };
  bool ok = BN_mul(t.get(), k.p.get(), k.q.get(), ctx.get()) && equals(t.get(), k.n.get()) &&
            BN_sub(pm1.get(), k.p.get(), BN_value_one()) && BN_sub(qm1.get(), k.q.get(), BN_value_one()) &&
            BN_nnmod(t.get(), k.d.get(), pm1.get(), ctx.get()) && equals(t.get(), k.dmp1.get()) &&
            BN_nnmod(t.get(), k.d.get(), qm1.get(), ctx.get()) && equals(t.get(), k.dmq1.get()) &&
            BN_mod_mul(t.get(), k.d.get(), k.e.get(), pm1.get(), ctx.get()) && BN_is_one(t.get()) &&
            BN_mod_mul(t.get(), k.d.get(), k.e.get(), qm1.get(), ctx.get()) && BN_is_one(t.get()) &&
            BN_mod_mul(t.get(), k.iqmp.get(), k.q.get(), k.p.get(), ctx.get()) && BN_is_one(t.get());
  ERR_clear_error();
  return ok;
}

Result<std::string> key_text(const RsaKey& key, bool with_private) {
  if (key.empty()) return make_error("BOINC key text: no key");
  if (key.bits() > kBoincMaxKeyBits) {
    return make_error("BOINC key text: expected a key of at most " + std::to_string(kBoincMaxKeyBits) +
                      " bits (BOINC's R_RSA key size), found " + std::to_string(key.bits()) + " bits");
  }
  if (with_private && !key.has_private()) {
    return make_error("BOINC key text: expected a private key, found a public one");
  }
  RsaParams p = crypto_detail::rsa_params_of(key);
  std::vector<uint8_t> bytes;
  bool ok = append_fixed(bytes, p.n.get(), kModulusLen) && append_fixed(bytes, p.e.get(), kModulusLen);
  if (ok && with_private) {
    ok = append_fixed(bytes, p.d.get(), kModulusLen) && append_fixed(bytes, p.p.get(), kPrimeLen) &&
         append_fixed(bytes, p.q.get(), kPrimeLen) && append_fixed(bytes, p.dmp1.get(), kPrimeLen) &&
         append_fixed(bytes, p.dmq1.get(), kPrimeLen) && append_fixed(bytes, p.iqmp.get(), kPrimeLen);
  }
  if (!ok) return make_error("BOINC key text: a key number does not fit its field");
  return std::to_string(key.bits()) + "\n" + boinc_hex_text(bytes);
}

Result<RsaKey> parse_key(std::string_view text, std::string_view source, bool is_private) {
  const std::string src(source);
  size_t newline = text.find('\n');
  std::string_view first = text.substr(0, newline);
  while (!first.empty() && std::isspace(static_cast<unsigned char>(first.back()))) first.remove_suffix(1);
  int bits = 0;
  auto [ptr, ec] = std::from_chars(first.data(), first.data() + first.size(), bits);
  if (newline == std::string_view::npos || first.empty() || ec != std::errc() ||
      ptr != first.data() + first.size() || bits < 1 || bits > kBoincMaxKeyBits) {
    return make_error(src + ": expected the key size in bits (1.." + std::to_string(kBoincMaxKeyBits) +
                      ") on line 1, found '" + std::string(first.substr(0, 40)) + "'");
  }
  Result<std::vector<uint8_t>> bytes = parse_boinc_hex(text.substr(newline + 1));
  if (!bytes) return make_error(src + ": " + bytes.error());
  size_t want = is_private ? kPrivateLen : kPublicLen;
  if (bytes->size() != want) {
    return make_error(src + ": expected " + std::to_string(want) + " bytes of " +
                      (is_private ? "private" : "public") + " key data, found " +
                      std::to_string(bytes->size()));
  }
  size_t at = 0;
  RsaParams p;
  p.n = read_fixed(*bytes, at, kModulusLen);
  p.e = read_fixed(*bytes, at, kModulusLen);
  if (is_private) {
    p.d = read_fixed(*bytes, at, kModulusLen);
    p.p = read_fixed(*bytes, at, kPrimeLen);
    p.q = read_fixed(*bytes, at, kPrimeLen);
    p.dmp1 = read_fixed(*bytes, at, kPrimeLen);
    p.dmq1 = read_fixed(*bytes, at, kPrimeLen);
    p.iqmp = read_fixed(*bytes, at, kPrimeLen);
  }
  if (BN_num_bits(p.n.get()) != bits) {
    return make_error(src + ": header says " + std::to_string(bits) + " bits, modulus has " +
                      std::to_string(BN_num_bits(p.n.get())));
  }
  Result<RsaKey> key = crypto_detail::rsa_key_from_params(p);
  if (!key) return make_error(src + ": " + key.error());
  if (is_private && !private_numbers_agree(p)) {
    return make_error(src + ": private key numbers are inconsistent (corrupt key)");
  }
  return key;
}

}  // namespace

Result<std::string> boinc_public_key_text(const RsaKey& key) { return key_text(key, false); }
Result<std::string> boinc_private_key_text(const RsaKey& key) { return key_text(key, true); }

Result<RsaKey> parse_boinc_public_key(std::string_view text, std::string_view source) {
  return parse_key(text, source, false);
}
Result<RsaKey> parse_boinc_private_key(std::string_view text, std::string_view source) {
  return parse_key(text, source, true);
}

Result<RsaKey> load_boinc_public_key(const std::string& path) {
  Result<std::string> text = read_text_file(path);
  if (!text) return make_error(text.error());
  return parse_key(*text, path, false);
}

Result<RsaKey> load_boinc_private_key(const std::string& path) {
  Result<std::string> text = read_text_file(path);
  if (!text) return make_error(text.error());
  return parse_key(*text, path, true);
}

Status write_boinc_key_pair(const RsaKey& key, const std::string& private_path,
                            const std::string& public_path) {
  Result<std::string> private_text = boinc_private_key_text(key);
  if (!private_text) return make_error(private_path + ": " + private_text.error());
  Result<std::string> public_text = boinc_public_key_text(key);
  if (!public_text) return make_error(public_path + ": " + public_text.error());
  Status written = write_text_file(private_path, *private_text, 0600);
  if (!written) return written;
  return write_text_file(public_path, *public_text, 0644);
}

Status write_boinc_key_files(const std::string& key_dir, const RsaKey& code_sign_key,
                             const RsaKey& upload_key) {
  Status code_sign =
      write_boinc_key_pair(code_sign_key, key_dir + "/code_sign_private", key_dir + "/code_sign_public");
  if (!code_sign) return code_sign;
  return write_boinc_key_pair(upload_key, key_dir + "/upload_private", key_dir + "/upload_public");
}

Result<ProjectKeys> load_boinc_key_files(const std::string& key_dir) {
  ProjectKeys keys;
  std::string code_sign_private = key_dir + "/code_sign_private";
  struct stat st {};
  if (::stat(code_sign_private.c_str(), &st) == 0) {
    Result<RsaKey> key = load_boinc_private_key(code_sign_private);
    if (!key) return make_error(key.error());
    keys.code_sign_private = *key;
  }
  Result<RsaKey> code_sign_public = load_boinc_public_key(key_dir + "/code_sign_public");
  if (!code_sign_public) return make_error(code_sign_public.error());
  Result<RsaKey> upload_private = load_boinc_private_key(key_dir + "/upload_private");
  if (!upload_private) return make_error(upload_private.error());
  Result<RsaKey> upload_public = load_boinc_public_key(key_dir + "/upload_public");
  if (!upload_public) return make_error(upload_public.error());
  keys.code_sign_public = *code_sign_public;
  keys.upload_private = *upload_private;
  keys.upload_public = *upload_public;
  return keys;
}

}  // namespace tharsis
