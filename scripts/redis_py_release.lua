-- redis-py Lock release (redis/lock.py, Lock.LUA_RELEASE_SCRIPT): delete the
-- key only while it holds this holder's token.
--   KEYS[1]  the lock name
--   ARGV[1]  the token written by SET name token NX [PX timeout]
-- Returns 1 when the key was ours and is deleted, else 0 (Lock.do_release
-- then raises LockNotOwnedError).
local stored = redis.call('get', KEYS[1])
if stored == false or stored ~= ARGV[1] then
  return 0
end
redis.call('del', KEYS[1])
return 1
