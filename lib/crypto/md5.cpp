// Implementation of lib/crypto/md5.h over OpenSSL's EVP digest API (MD5() itself is
// deprecated in OpenSSL 3).
#include "lib/crypto/md5.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace tharsis {
namespace {

struct DigestContextFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using DigestContext = std::unique_ptr<EVP_MD_CTX, DigestContextFree>;

DigestContext new_md5_context() {
  DigestContext ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_md5(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL: cannot initialise an MD5 digest");
  }
  return ctx;
}

std::string finish_hex(EVP_MD_CTX* ctx) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx, digest, &length) != 1) {
    throw std::runtime_error("OpenSSL: cannot finish an MD5 digest");
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0x0f]);
  }
  return out;
}

}  // namespace

std::string md5_hex(std::string_view data) {
  DigestContext ctx = new_md5_context();
  if (EVP_DigestUpdate(ctx.get(), data.data(), data.size()) != 1) {
    throw std::runtime_error("OpenSSL: MD5 update failed");
  }
  return finish_hex(ctx.get());
}

Result<std::string> md5_file_hex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("md5 of " + path + ": cannot open file: " + std::strerror(errno));
  DigestContext ctx = new_md5_context();
  char buffer[64 * 1024];
  while (in) {
    in.read(buffer, sizeof buffer);
    std::streamsize got = in.gcount();
    if (got > 0 && EVP_DigestUpdate(ctx.get(), buffer, static_cast<size_t>(got)) != 1) {
      throw std::runtime_error("OpenSSL: MD5 update failed");
    }
  }
  if (in.bad()) return make_error("md5 of " + path + ": read error");
  return finish_hex(ctx.get());
}

}  // namespace tharsis
