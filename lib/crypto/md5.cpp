// Implementation of lib/crypto/md5.h over OpenSSL's EVP digest API (MD5() itself is
// deprecated in OpenSSL 3). The daemons hash a name or a small file per unit, so the
// digest is fetched from the provider once per process and each thread reuses one context
// (an implicit fetch per digest costs locks and lookups), and files are read with plain
// open/read: no stream, no locale.
#include "lib/crypto/md5.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "lib/fd_closer.h"

namespace tharsis {
namespace {

struct DigestContextFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using DigestContext = std::unique_ptr<EVP_MD_CTX, DigestContextFree>;

struct DigestFree {
  void operator()(EVP_MD* md) const { EVP_MD_free(md); }
};

// MD5 from the default provider, fetched once.
const EVP_MD* md5_algorithm() {
  static const std::unique_ptr<EVP_MD, DigestFree> md(EVP_MD_fetch(nullptr, "MD5", nullptr));
  if (!md) throw std::runtime_error("OpenSSL: no MD5 digest");
  return md.get();
}

// This thread's context, started afresh for a new digest.
EVP_MD_CTX* new_md5_context() {
  thread_local DigestContext ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md5_algorithm(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL: cannot initialise an MD5 digest");
  }
  return ctx.get();
}

Md5Digest finish(EVP_MD_CTX* ctx) {
  Md5Digest digest{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx, digest.data(), &length) != 1 || length != digest.size()) {
    throw std::runtime_error("OpenSSL: cannot finish an MD5 digest");
  }
  return digest;
}

std::string hex_of(const Md5Digest& digest) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * digest.size());
  for (unsigned char byte : digest) {
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0x0f]);
  }
  return out;
}

}  // namespace

Md5Digest md5_bytes(std::string_view data) {
  EVP_MD_CTX* ctx = new_md5_context();
  if (EVP_DigestUpdate(ctx, data.data(), data.size()) != 1) {
    throw std::runtime_error("OpenSSL: MD5 update failed");
  }
  return finish(ctx);
}

std::string md5_hex(std::string_view data) { return hex_of(md5_bytes(data)); }

Result<std::string> md5_fd_hex(int fd, const std::string& path, int64_t regular_size) {
  EVP_MD_CTX* ctx = new_md5_context();
  char buffer[64 * 1024];
  int64_t total = 0;
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      Result<std::string> failed = make_error("md5 of " + path + ": read error");
      errno = error;  // for callers that classify the failure (lib/work/output_check.cpp)
      return failed;
    }
    if (EVP_DigestUpdate(ctx, buffer, static_cast<size_t>(got)) != 1) {
      throw std::runtime_error("OpenSSL: MD5 update failed");
    }
    total += got;
    // A regular file returns less than asked only at its end: with all its bytes in, that
    // short read was the end (no read of 0 bytes to see it).
    if (regular_size >= 0 && total >= regular_size && static_cast<size_t>(got) < sizeof buffer) break;
  }
  return hex_of(finish(ctx));
}

Result<std::string> md5_file_hex(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error("md5 of " + path + ": cannot open file: " + std::strerror(errno));
  FdCloser closer{fd};
  return md5_fd_hex(fd, path, -1);
}

}  // namespace tharsis
