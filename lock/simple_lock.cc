#include "lock/simple_lock.h"

namespace redsim::lock {

bool SimpleLock::release_token(const std::string& token) { return compare_and_delete(token); }

}  // namespace redsim::lock
