#include "lock/get_del_lock.h"

namespace redsim::lock {

bool GetDelLock::release_token(const std::string& token) {
  const Reply current = call({"GET", key()});
  if (!current.is_bulk() || current.str() != token) return false;
  env().trace("GET " + key() + " matched our token; DEL follows as a separate command");
  // The race window: the key may expire and be re-taken before this DEL.
  call({"DEL", key()});
  return true;
}

}  // namespace redsim::lock
