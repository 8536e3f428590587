-- redis-py Lock.reacquire (redis/lock.py, Lock.LUA_REACQUIRE_SCRIPT): while
-- the key holds our token, set its TTL back to the lock's timeout.
--   KEYS[1]  the lock name
--   ARGV[1]  the token
--   ARGV[2]  the timeout in ms
-- Returns 1 when the TTL was set; 0 when the key is gone or holds another
-- token (Lock.do_reacquire then raises LockNotOwnedError).
local stored = redis.call('get', KEYS[1])
if stored == false or stored ~= ARGV[1] then
  return 0
end
redis.call('pexpire', KEYS[1], ARGV[2])
return 1
