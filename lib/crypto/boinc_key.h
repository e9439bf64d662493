// BOINC's text key files (keys/code_sign_private, keys/code_sign_public,
// keys/upload_private, keys/upload_public), byte for byte what BOINC's
// `crypt_prog -genkey` writes and what its scheduler, upload handler and the stock client
// read, including the <code_sign_key> text of a scheduler reply.
//
// Format (BOINC's print_key_hex over its R_RSA_PUBLIC_KEY / R_RSA_PRIVATE_KEY structs):
//   line 1: the key size in bits, decimal, then '\n';
//   then the struct's bytes after its 2-byte `bits` field, as lowercase hex, 32 bytes
//   (64 digits) per line each ending '\n', a final '\n' after a partial line, then ".\n".
// Every number is big-endian and left-padded with zero bytes to its fixed field size:
//   public  (256 bytes): modulus[128] exponent[128]
//   private (704 bytes): modulus[128] publicExponent[128] exponent(d)[128]
//                        prime p[64] prime q[64] d mod (p-1)[64] d mod (q-1)[64]
//                        coefficient q^-1 mod p[64]
// The fields hold at most 1024-bit keys (MAX_RSA_MODULUS_BITS in BOINC), so only keys of
// 512..1024 bits can be written; BOINC itself generates 1024-bit keys.
#pragma once

#include <string>
#include <string_view>

#include "lib/crypto/rsa_key.h"
#include "lib/result.h"

namespace tharsis {

inline constexpr int kBoincMaxKeyBits = 1024;

// Text of the public half / the whole private key in BOINC's format. Fails for keys larger
// than kBoincMaxKeyBits, or (private) for a public-only key.
Result<std::string> boinc_public_key_text(const RsaKey& key);
Result<std::string> boinc_private_key_text(const RsaKey& key);

// Parse BOINC key text. Whitespace between hex digits is ignored, the '.' terminator is
// optional; the byte count must be exact, the bit count must match the modulus, and a
// private key's numbers must agree (n = pq, d and the CRT values match e, p and q;
// p and q are not tested for primality). Messages start with `source`.
Result<RsaKey> parse_boinc_public_key(std::string_view text, std::string_view source = "public key");
Result<RsaKey> parse_boinc_private_key(std::string_view text, std::string_view source = "private key");

Result<RsaKey> load_boinc_public_key(const std::string& path);
Result<RsaKey> load_boinc_private_key(const std::string& path);

// Writes `key` as <private_path> (mode 0600) and <public_path> (mode 0644).
Status write_boinc_key_pair(const RsaKey& key, const std::string& private_path,
                            const std::string& public_path);

// The project's two key pairs, named as BOINC names them, in `key_dir` (which must exist):
// code_sign_private, code_sign_public, upload_private, upload_public.
Status write_boinc_key_files(const std::string& key_dir, const RsaKey& code_sign_key,
                             const RsaKey& upload_key);

struct ProjectKeys {
  RsaKey code_sign_private;  // empty when the file is absent (BOINC advises keeping it offline)
  RsaKey code_sign_public;
  RsaKey upload_private;  // signs upload certificates (transitioner / work creation)
  RsaKey upload_public;   // checks them (file upload handler)
};

// Loads the four files written by write_boinc_key_files. All but code_sign_private must exist.
Result<ProjectKeys> load_boinc_key_files(const std::string& key_dir);

}  // namespace tharsis
