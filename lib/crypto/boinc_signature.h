// BOINC-compatible RSA signatures: code signing of application and input files
// (<file_signature>, checked by the stock client against the project's <code_sign_key>)
// and upload certificates (<xml_signature>, made with upload_private, checked by the file
// upload handler with upload_public).
//
// What is signed: always the 32 ASCII characters of an MD5 digest in lowercase hex --
//   sign_file_boinc:  md5 of the file's bytes (what BOINC's sign_file / crypt_prog -sign do);
//   sign_block_boinc: md5 of the given text's bytes (BOINC's sign_block / generate_signature);
//   sign_md5_boinc:   the given digest text itself (for a file whose md5 is already known).
// How: RSA "private encrypt" of those 32 bytes with PKCS#1 v1.5 type-1 padding and no
// DigestInfo/hash OID (BOINC's encrypt_private), i.e. a raw EVP_PKEY_sign with
// RSA_PKCS1_PADDING and no message digest set. Verification recovers the 32 bytes with the
// public key and compares them with the expected digest text.
// Signature text: BOINC's sprint_hex_data -- lowercase hex, 32 bytes per line each ending
// '\n', a final '\n' after a partial line, then ".\n" (128 bytes = 4 lines for 1024 bits).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/crypto/rsa_key.h"
#include "lib/result.h"

namespace tharsis {

// BOINC's hex text of binary data (sprint_hex_data), and its inverse. The parser skips
// whitespace, stops at '.', and rejects any other non-hex character or an odd digit count;
// text after the '.' may only be whitespace.
std::string boinc_hex_text(const std::vector<uint8_t>& data);
Result<std::vector<uint8_t>> parse_boinc_hex(std::string_view text);

Result<std::string> sign_md5_boinc(const RsaKey& private_key, std::string_view md5_hex);
Result<std::string> sign_file_boinc(const RsaKey& private_key, const std::string& path);
Result<std::string> sign_block_boinc(const RsaKey& private_key, std::string_view text);

// true: the signature was made by the matching private key over this md5/file/text.
// false: it was not (tampered data or signature, wrong key, wrong length).
// Error: the signature text is not BOINC hex, or the file cannot be read.
Result<bool> verify_md5_boinc(const RsaKey& public_key, std::string_view md5_hex,
                              std::string_view signature_text);
Result<bool> verify_file_boinc(const RsaKey& public_key, const std::string& path,
                               std::string_view signature_text);
Result<bool> verify_block_boinc(const RsaKey& public_key, std::string_view text,
                                std::string_view signature_text);

// The text an upload certificate signs for output file `name`: exactly
// "<name>NAME</name><max_nbytes>N</max_nbytes>" with N printed as "%.0f" (BOINC's
// add_signatures and file_upload_handler build this same string).
std::string upload_certificate_text(std::string_view name, double max_nbytes);

}  // namespace tharsis
