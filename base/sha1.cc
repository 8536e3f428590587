#include "base/sha1.h"

#include <openssl/evp.h>

namespace redsim::base {

namespace {

std::string digest_hex(std::string_view data, const EVP_MD* md, const char* name) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, md, nullptr) != 1) {
    throw DigestError(std::string(name) + ": OpenSSL EVP_Digest failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

}  // namespace

std::string sha1_hex(std::string_view data) { return digest_hex(data, EVP_sha1(), "sha1_hex"); }

std::string sha256_hex(std::string_view data) {
  return digest_hex(data, EVP_sha256(), "sha256_hex");
}

}  // namespace redsim::base
