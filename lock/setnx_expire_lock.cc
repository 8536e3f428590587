#include "lock/setnx_expire_lock.h"

#include "lock/errors.h"

namespace redsim::lock {

bool SetnxExpireLock::acquire_once(const std::string& token) {
  const Reply set = call({"SETNX", key(), token});
  if (!set.is_integer()) {
    throw UnexpectedReply("SETNX '" + key() + "' answered " + set.debug_string());
  }
  if (set.integer() == 0) return false;
  env().trace("SETNX " + key() + " won; the key has no expiry until PEXPIRE");
  // The window of the article: a crash here leaves the key without a TTL.
  call({"PEXPIRE", key(), lease_ms_arg()});
  return true;
}

bool SetnxExpireLock::release_token(const std::string& token) { return compare_and_delete(token); }

}  // namespace redsim::lock
