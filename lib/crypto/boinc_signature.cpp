// Implementation of lib/crypto/boinc_signature.h with EVP_PKEY_sign /
// EVP_PKEY_verify_recover (OpenSSL 3, no deprecated RSA_private_encrypt).
#include "lib/crypto/boinc_signature.h"

#include <openssl/err.h>
#include <openssl/rsa.h>

#include <cctype>
#include <cstdio>
#include <memory>

#include "lib/crypto/md5.h"

namespace tharsis {
namespace {

struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* ctx) const { EVP_PKEY_CTX_free(ctx); }
};
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;

int hex_value(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

}  // namespace

std::string boinc_hex_text(const std::vector<uint8_t>& data) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(data.size() * 2 + data.size() / 32 + 4);
  for (size_t i = 0; i < data.size(); ++i) {
    out.push_back(kHex[data[i] >> 4]);
    out.push_back(kHex[data[i] & 0x0f]);
    if (i % 32 == 31) out.push_back('\n');
  }
  if (data.size() % 32 != 0) out.push_back('\n');
  out += ".\n";
  return out;
}

Result<std::vector<uint8_t>> parse_boinc_hex(std::string_view text) {
  std::vector<uint8_t> out;
  int high = -1;
  size_t i = 0;
  for (; i < text.size(); ++i) {
    char ch = text[i];
    if (std::isspace(static_cast<unsigned char>(ch))) continue;
    if (ch == '.') break;
    int value = hex_value(ch);
    if (value < 0) {
      return make_error("expected hex digits ending in '.', found '" + std::string(1, ch) + "' at offset " +
                        std::to_string(i));
    }
    if (high < 0) {
      high = value;
    } else {
      out.push_back(static_cast<uint8_t>(high * 16 + value));
      high = -1;
    }
  }
  if (high >= 0) return make_error("expected an even number of hex digits, found an odd one");
  for (++i; i < text.size(); ++i) {
    if (!std::isspace(static_cast<unsigned char>(text[i]))) {
      return make_error("expected nothing after the final '.', found '" + std::string(1, text[i]) + "'");
    }
  }
  return out;
}

Result<std::string> sign_md5_boinc(const RsaKey& private_key, std::string_view md5_hex) {
  if (!private_key.has_private()) return make_error("BOINC signature: expected a private key");
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, private_key.get(), nullptr));
  size_t length = 0;
  const auto* in = reinterpret_cast<const unsigned char*>(md5_hex.data());
  if (!ctx || EVP_PKEY_sign_init(ctx.get()) <= 0 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING) <= 0 ||
      EVP_PKEY_sign(ctx.get(), nullptr, &length, in, md5_hex.size()) <= 0) {
    ERR_clear_error();
    return make_error("BOINC signature: OpenSSL cannot set up the RSA signature");
  }
  std::vector<uint8_t> signature(length);
  if (EVP_PKEY_sign(ctx.get(), signature.data(), &length, in, md5_hex.size()) <= 0) {
    ERR_clear_error();
    return make_error("BOINC signature: RSA signing failed");
  }
  signature.resize(length);
  return boinc_hex_text(signature);
}

Result<std::string> sign_file_boinc(const RsaKey& private_key, const std::string& path) {
  Result<std::string> md5 = md5_file_hex(path);
  if (!md5) return make_error(md5.error());
  return sign_md5_boinc(private_key, *md5);
}

Result<std::string> sign_block_boinc(const RsaKey& private_key, std::string_view text) {
  return sign_md5_boinc(private_key, md5_hex(text));
}

Result<bool> verify_md5_boinc(const RsaKey& public_key, std::string_view md5_hex,
                              std::string_view signature_text) {
  if (public_key.empty()) return make_error("BOINC signature check: no public key");
  Result<std::vector<uint8_t>> signature = parse_boinc_hex(signature_text);
  if (!signature) return make_error("BOINC signature: " + signature.error());
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, public_key.get(), nullptr));
  if (!ctx || EVP_PKEY_verify_recover_init(ctx.get()) <= 0 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING) <= 0) {
    ERR_clear_error();
    return make_error("BOINC signature check: OpenSSL cannot set up RSA recovery");
  }
  std::vector<uint8_t> recovered(static_cast<size_t>(EVP_PKEY_get_size(public_key.get())));
  size_t length = recovered.size();
  // A wrong key, a tampered signature or a wrong length all fail the padding check here.
  if (EVP_PKEY_verify_recover(ctx.get(), recovered.data(), &length, signature->data(), signature->size()) <=
      0) {
    ERR_clear_error();
    return false;
  }
  return std::string_view(reinterpret_cast<const char*>(recovered.data()), length) == md5_hex;
}

Result<bool> verify_file_boinc(const RsaKey& public_key, const std::string& path,
                               std::string_view signature_text) {
  Result<std::string> md5 = md5_file_hex(path);
  if (!md5) return make_error(md5.error());
  return verify_md5_boinc(public_key, *md5, signature_text);
}

Result<bool> verify_block_boinc(const RsaKey& public_key, std::string_view text,
                                std::string_view signature_text) {
  return verify_md5_boinc(public_key, md5_hex(text), signature_text);
}

std::string upload_certificate_text(std::string_view name, double max_nbytes) {
  char number[64];
  std::snprintf(number, sizeof number, "%.0f", max_nbytes);
  return "<name>" + std::string(name) + "</name><max_nbytes>" + number + "</max_nbytes>";
}

}  // namespace tharsis
