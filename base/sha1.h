// SHA1 of a byte string, as lower-case hex: the name Redis gives a script
// (EVALSHA, SCRIPT LOAD, redis.sha1hex) and the one the lock scripts are
// sent under. Computed with OpenSSL's EVP interface (the low-level SHA1()
// call is deprecated in OpenSSL 3).
//
//   base::sha1_hex("")  // "da39a3ee5e6b4b0d3255bfef95601890afd80709"
//
// Also SHA-256 (sha256_hex), for ACL passwords.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace redsim::base {

// Thrown only when OpenSSL cannot compute a digest (no SHA1 provider loaded).
class DigestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// 40 lower-case hex digits of SHA1(`data`). Throws DigestError when OpenSSL fails.
std::string sha1_hex(std::string_view data);

// 64 lower-case hex digits of SHA-256(`data`): how Redis's ACL stores a
// password (`>pw`, `#<hash>`, ACL GETUSER's "passwords"). Throws
// DigestError when OpenSSL fails.
std::string sha256_hex(std::string_view data);

}  // namespace redsim::base
