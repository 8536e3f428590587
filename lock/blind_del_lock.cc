#include "lock/blind_del_lock.h"

namespace redsim::lock {

bool BlindDelLock::release_token(const std::string& /*token*/) {
  call({"DEL", key()});
  return true;
}

}  // namespace redsim::lock
