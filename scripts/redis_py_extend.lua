-- redis-py Lock.extend (redis/lock.py, Lock.LUA_EXTEND_SCRIPT): while the key
-- holds our token and has a TTL, set its TTL to ARGV[2] ms (replace) or to
-- the TTL left plus ARGV[2] ms (add).
--   KEYS[1]  the lock name
--   ARGV[1]  the token
--   ARGV[2]  the additional milliseconds
--   ARGV[3]  "1": replace the TTL; anything else ("0"): add to what is left
-- Returns 1 when the TTL was changed; 0 when the key is gone, holds another
-- token, or has no expiry (Lock.do_extend then raises LockNotOwnedError).
local stored = redis.call('get', KEYS[1])
if stored == false or stored ~= ARGV[1] then
  return 0
end
local left = redis.call('pttl', KEYS[1])
if left == false then
  left = 0
end
if left < 0 then
  return 0
end
local ttl = ARGV[2]
if ARGV[3] == "0" then
  ttl = ARGV[2] + left
end
redis.call('pexpire', KEYS[1], ttl)
return 1
