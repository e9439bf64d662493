// BOINC-compatible keys and signatures: known-answer vectors made independently of this
// code (a key from `openssl genpkey`, laid out in BOINC's key format by a separate script
// from BOINC's struct definitions, signatures from `openssl pkeyutl -sign` with PKCS#1
// type-1 padding over the md5 hex text), plus round trips and rejections.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "lib/crypto/boinc_key.h"
#include "lib/crypto/boinc_signature.h"
#include "lib/crypto/md5.h"
#include "lib/crypto/openssl_setup.h"
#include "lib/crypto/rsa_key.h"
#include "lib/text_file.h"

namespace tharsis::crypto_test {
namespace {

const char kVectorPrivate[] = R"(1024
d5c163ef9ea9530e54f8c2e31db55aa97cc089eddc7975cde02b33312da11439
be346032072f4f853d0bd98f1ffab0b6c0bdc17a8150041b48663c1b05a65364
5b18dd3dd9b4e617637435e457148e5f0f12c4f981c5ba0a4eb52dbda4dcd9a9
639990b6be4660fc3aad6106587761f161f35ad336ad5f7f8e5dda0f9c97598b
0000000000000000000000000000000000000000000000000000000000000000
0000000000000000000000000000000000000000000000000000000000000000
0000000000000000000000000000000000000000000000000000000000000000
0000000000000000000000000000000000000000000000000000000000010001
224284c9fb1c187bcb92b369c37135bec487f793702ae77ebfd72cb54d22ec22
f5215fe9a4cd2869aa8723af94e8913a395a309079f9612f1e43848eb031205c
4246c72c60f10cdb5025123d9a096fc21a30c368bf1585d9ec8baf7588fe752f
e7cb9b4563071567b72dd3b4b9643f4e23286593471456d0dbf3e67566709dc1
f67aef2c176975494f184fc922e43b3cd760f1b0b30643fe3b2eab81a53e1e08
25b4acbd39117fd0dba2f3d8f9b1f396d9dd11be2eb5e147707bc64748edf1c5
de02e40c7debf515e71da4eb86af993ce1a43c569707174db94f9fa545e87a28
a0770bb99c4ca7e063c7acdf0fc8889deeadc30bc1017cec34624f9b8efb630f
bb2f7371edb9c63bcd58ae47173b730d6a981214da70b8b45b67bf122f56f461
c598e7d2b0836ca9461403d25516e2e23e445894314f296e22abad5237bd94ed
dd0e55d1d663e6b1fb60fa0086283c55717b1d953e66121f12e0245ee51fd8da
b1043809858692358c449a6db48280fd78554dfb5b1f472acdf201c02b7b45a3
6b55a7cb010f2d8207f44a2b7115492af11c246663aaa844b65aa5bb7c89f571
7a8f075d3e2f74216eab470f7df553af1823ea59dae7e2ee10c46ca06cd51923
.
)";
const char kVectorPublic[] = R"(1024
d5c163ef9ea9530e54f8c2e31db55aa97cc089eddc7975cde02b33312da11439
be346032072f4f853d0bd98f1ffab0b6c0bdc17a8150041b48663c1b05a65364
5b18dd3dd9b4e617637435e457148e5f0f12c4f981c5ba0a4eb52dbda4dcd9a9
639990b6be4660fc3aad6106587761f161f35ad336ad5f7f8e5dda0f9c97598b
0000000000000000000000000000000000000000000000000000000000000000
0000000000000000000000000000000000000000000000000000000000000000
0000000000000000000000000000000000000000000000000000000000000000
0000000000000000000000000000000000000000000000000000000000010001
.
)";
const char kVectorBlockSig[] = R"(b6bd46aa380d983441d02f7bd9afe397fd14611787057e97a28d379ee5dee53a
600d31e980556d6bea404b33b6a615c365d5d8883e73b60d20df0baf2bcdf198
34360d49014664e6efc9141bc371dad64e04265f306546b34bf70648fde438ed
268494383786558ad3ed37c0ef6b5249080b46c3c1bc6cb45f0c10e3508a321f
.
)";
const char kVectorCertSig[] = R"(53c19723cabea3ca3898ce0f1a4d76c1c14e6af22b6ef73fc15288200d543419
3ec7357bcaac91e6aa042f976f705fa0c2a18c77844060c5020689c57afeab6b
e497d5fa824daa018700dc3a245837cae0e66f676bd877a07499bf6bdc7a30ca
9ed28de6cfda52307948b9e8eb22a0adb288490312b6c410ccb349d92ef6ffc4
.
)";

// Key generation is the slow part; share one small key pair per test binary.
const RsaKey& test_key() {
  static const RsaKey key = *generate_key_pair(1024);
  return key;
}
const RsaKey& other_key() {
  static const RsaKey key = *generate_key_pair(1024);
  return key;
}

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("tharsis_crypto_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST(BoincKey, KnownVectorParsesAndRendersByteIdentical) {
  auto priv = parse_boinc_private_key(kVectorPrivate);
  ASSERT_TRUE(priv.ok()) << priv.error();
  EXPECT_TRUE(priv->has_private());
  EXPECT_EQ(priv->bits(), 1024);
  EXPECT_EQ(*boinc_private_key_text(*priv), kVectorPrivate);
  EXPECT_EQ(*boinc_public_key_text(*priv), kVectorPublic);

  auto pub = parse_boinc_public_key(kVectorPublic);
  ASSERT_TRUE(pub.ok()) << pub.error();
  EXPECT_FALSE(pub->has_private());
  EXPECT_TRUE(same_public_key(*pub, *priv));
  EXPECT_EQ(*boinc_public_key_text(*pub), kVectorPublic);
}

TEST(BoincSignature, SignBlockMatchesIndependentOpensslSignature) {
  auto priv = parse_boinc_private_key(kVectorPrivate);
  ASSERT_TRUE(priv.ok()) << priv.error();
  EXPECT_EQ(*sign_block_boinc(*priv, "hello tharsis"), kVectorBlockSig);
  EXPECT_EQ(*sign_block_boinc(*priv, upload_certificate_text("wu_1_0_r1", 1e6)), kVectorCertSig);
  auto pub = parse_boinc_public_key(kVectorPublic);
  ASSERT_TRUE(pub.ok());
  EXPECT_TRUE(*verify_block_boinc(*pub, "hello tharsis", kVectorBlockSig));
  EXPECT_FALSE(*verify_block_boinc(*pub, "hello tharsis!", kVectorBlockSig));
}

// In a child process of its own (OpenSSL's generators are made once per process, on first
// use): after the set-up, the private generator RSA blinding draws from is a Hash DRBG, and
// the signatures are still the independent known answers.
TEST(OpensslSetup, ShortRunsDrawFromAHashDrbgAndSignTheKnownAnswers) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        bool set_up = set_up_openssl_for_short_runs();
        auto priv = parse_boinc_private_key(kVectorPrivate);
        auto signature = priv.ok() ? sign_block_boinc(*priv, upload_certificate_text("wu_1_0_r1", 1e6))
                                   : Result<std::string>(Error{priv.error()});
        EVP_RAND_CTX* generator = RAND_get0_private(nullptr);
        std::string type = generator ? EVP_RAND_get0_name(EVP_RAND_CTX_get0_rand(generator)) : "";
        std::fprintf(stderr, "set up %d, generator %s, signature %s\n", set_up, type.c_str(),
                     signature.ok() && *signature == kVectorCertSig ? "known" : "other");
        std::_Exit(set_up && type == "HASH-DRBG" && signature.ok() && *signature == kVectorCertSig ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "set up 1, generator HASH-DRBG, signature known");
}

TEST(BoincSignature, UploadCertificateTextIsBoincsSignedXml) {
  EXPECT_EQ(upload_certificate_text("wu_1_0_r1", 1e6),
            "<name>wu_1_0_r1</name><max_nbytes>1000000</max_nbytes>");
  EXPECT_EQ(upload_certificate_text("out", 65536.4), "<name>out</name><max_nbytes>65536</max_nbytes>");
}

TEST(BoincSignature, HexTextHas32BytesPerLineAndDotTerminator) {
  std::vector<uint8_t> data(40);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  std::string text = boinc_hex_text(data);
  EXPECT_EQ(text.substr(0, 6), "00070e");
  EXPECT_EQ(text.find('\n'), 64u);
  EXPECT_EQ(text.size(), 64u + 1 + 16 + 1 + 2);
  EXPECT_EQ(text.substr(text.size() - 3), "\n.\n");
  EXPECT_EQ(boinc_hex_text({}), ".\n");
  auto back = parse_boinc_hex(text);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, data);
  EXPECT_FALSE(parse_boinc_hex("abc.").ok());          // odd digit count
  EXPECT_FALSE(parse_boinc_hex("abzz.").ok());         // not hex
  EXPECT_FALSE(parse_boinc_hex("ab.\ncd").ok());       // junk after '.'
  EXPECT_EQ(parse_boinc_hex(" AB\ncd ")->size(), 2u);  // '.' optional, case-insensitive
}

TEST(BoincSignature, FileSignVerifyRoundTripAndTamperRejected) {
  TempDir dir;
  std::string path = dir.file("app_1.0");
  ASSERT_TRUE(write_text_file(path, std::string(100000, 'a') + "payload").ok());
  auto signature = sign_file_boinc(test_key(), path);
  ASSERT_TRUE(signature.ok()) << signature.error();
  auto pub = public_part(test_key());
  ASSERT_TRUE(pub.ok());
  EXPECT_TRUE(*verify_file_boinc(*pub, path, *signature));
  // The signature covers the md5 text of the file, so sign_md5 of that digest is the same.
  EXPECT_EQ(*sign_md5_boinc(test_key(), *md5_file_hex(path)), *signature);
  EXPECT_TRUE(*verify_md5_boinc(*pub, *md5_file_hex(path), *signature));

  ASSERT_TRUE(write_text_file(path, std::string(100000, 'a') + "paylOad").ok());
  EXPECT_FALSE(*verify_file_boinc(*pub, path, *signature));
  EXPECT_FALSE(verify_file_boinc(*pub, dir.file("missing"), *signature).ok());
}

TEST(BoincSignature, WrongKeyAndTamperedSignatureRejected) {
  auto signature = sign_block_boinc(test_key(), "<name>x</name><max_nbytes>10</max_nbytes>");
  ASSERT_TRUE(signature.ok());
  EXPECT_TRUE(*verify_block_boinc(test_key(), "<name>x</name><max_nbytes>10</max_nbytes>", *signature));
  EXPECT_FALSE(*verify_block_boinc(other_key(), "<name>x</name><max_nbytes>10</max_nbytes>", *signature));
  EXPECT_FALSE(*verify_block_boinc(test_key(), "<name>x</name><max_nbytes>99</max_nbytes>", *signature));

  std::string flipped = *signature;
  flipped[5] = flipped[5] == '0' ? '1' : '0';
  EXPECT_FALSE(*verify_block_boinc(test_key(), "<name>x</name><max_nbytes>10</max_nbytes>", flipped));
  std::string truncated = signature->substr(0, 64) + "\n.\n";
  EXPECT_FALSE(*verify_block_boinc(test_key(), "<name>x</name><max_nbytes>10</max_nbytes>", truncated));
  EXPECT_FALSE(verify_block_boinc(test_key(), "x", "not a signature").ok());
}

TEST(BoincSignature, SigningNeedsPrivateKey) {
  auto pub = public_part(test_key());
  ASSERT_TRUE(pub.ok());
  EXPECT_FALSE(sign_block_boinc(*pub, "x").ok());
}

TEST(BoincKey, KeyFilesRoundTripWithPrivateFilesMode0600) {
  TempDir dir;
  ASSERT_TRUE(write_boinc_key_files(dir.file(""), test_key(), other_key()).ok());
  EXPECT_EQ(mode_of(dir.file("code_sign_private")), 0600u);
  EXPECT_EQ(mode_of(dir.file("upload_private")), 0600u);
  EXPECT_EQ(mode_of(dir.file("upload_public")), 0644u);
  auto keys = load_boinc_key_files(dir.file(""));
  ASSERT_TRUE(keys.ok()) << keys.error();
  EXPECT_TRUE(same_public_key(keys->code_sign_private, test_key()));
  EXPECT_TRUE(same_public_key(keys->code_sign_public, test_key()));
  EXPECT_TRUE(same_public_key(keys->upload_private, other_key()));
  EXPECT_FALSE(keys->upload_public.has_private());
  EXPECT_EQ(*read_text_file(dir.file("upload_private")), *boinc_private_key_text(other_key()));
  // A key loaded back signs exactly as the original (PKCS#1 v1.5 is deterministic).
  EXPECT_EQ(*sign_block_boinc(keys->upload_private, "t"), *sign_block_boinc(other_key(), "t"));

  // code_sign_private may be kept offline.
  std::filesystem::remove(dir.file("code_sign_private"));
  auto without = load_boinc_key_files(dir.file(""));
  ASSERT_TRUE(without.ok()) << without.error();
  EXPECT_TRUE(without->code_sign_private.empty());
  std::filesystem::remove(dir.file("upload_public"));
  EXPECT_FALSE(load_boinc_key_files(dir.file("")).ok());
}

TEST(BoincKey, MalformedKeyTextRejectedWithReason) {
  auto no_bits = parse_boinc_public_key("abc\n00\n.\n", "keys/upload_public");
  ASSERT_FALSE(no_bits.ok());
  EXPECT_EQ(no_bits.error().rfind("keys/upload_public: expected the key size in bits", 0), 0u)
      << no_bits.error();

  auto short_data = parse_boinc_public_key("1024\n0011\n.\n");
  ASSERT_FALSE(short_data.ok());
  EXPECT_EQ(short_data.error(), "public key: expected 256 bytes of public key data, found 2");

  // A public key's text is not a private key.
  EXPECT_FALSE(parse_boinc_private_key(kVectorPublic).ok());

  // Corrupting one digit of the private exponent makes the key inconsistent.
  std::string corrupt = kVectorPrivate;
  size_t d_digit = corrupt.find('\n') + 1 + 2 * 256 + 8 + 20;  // inside d (after n and e)
  corrupt[d_digit] = corrupt[d_digit] == 'f' ? 'e' : 'f';
  auto bad = parse_boinc_private_key(corrupt);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("inconsistent"), std::string::npos) << bad.error();
}

// Each private number is checked against the others (n = pq, d, CRT values): one changed
// digit in any of d, p, q, d mod p-1, d mod q-1 or q^-1 mod p is caught.
TEST(BoincKey, CorruptDigitInAnyPrivateNumberRejected) {
  const std::string good = kVectorPrivate;
  const size_t data_start = good.find('\n') + 1;
  // Field starts in hex digits: n 0, e 256, d 512, p 768, q 896, dmp1 1024, dmq1 1152, iqmp 1280.
  for (size_t field : {512, 768, 896, 1024, 1152, 1280}) {
    size_t digit = field + 37;
    size_t at = data_start + digit + digit / 64;  // 64 digits per line
    std::string corrupt = good;
    corrupt[at] = corrupt[at] == 'f' ? 'e' : 'f';
    auto bad = parse_boinc_private_key(corrupt);
    ASSERT_FALSE(bad.ok()) << "corrupt digit at hex offset " << digit << " accepted";
    EXPECT_NE(bad.error().find("inconsistent"), std::string::npos) << bad.error();
  }
  EXPECT_TRUE(parse_boinc_private_key(good).ok());
}

TEST(BoincKey, KeysLargerThan1024BitsRefusedForBoincFormat) {
  auto big = generate_key_pair(2048);
  ASSERT_TRUE(big.ok());
  auto text = boinc_public_key_text(*big);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().find("at most 1024 bits"), std::string::npos) << text.error();
}

TEST(RsaKey, PemRoundTripAndGenerateBounds) {
  TempDir dir;
  ASSERT_TRUE(save_private_key_pem(test_key(), dir.file("k.pem")).ok());
  ASSERT_TRUE(save_public_key_pem(test_key(), dir.file("k.pub")).ok());
  EXPECT_EQ(mode_of(dir.file("k.pem")), 0600u);
  auto priv = load_private_key_pem(dir.file("k.pem"));
  auto pub = load_public_key_pem(dir.file("k.pub"));
  ASSERT_TRUE(priv.ok()) << priv.error();
  ASSERT_TRUE(pub.ok()) << pub.error();
  EXPECT_TRUE(priv->has_private());
  EXPECT_FALSE(pub->has_private());
  EXPECT_TRUE(same_public_key(*pub, test_key()));
  EXPECT_FALSE(same_public_key(*pub, other_key()));
  EXPECT_FALSE(load_private_key_pem(dir.file("k.pub")).ok());
  EXPECT_FALSE(generate_key_pair(100).ok());
}

}  // namespace
}  // namespace tharsis::crypto_test
