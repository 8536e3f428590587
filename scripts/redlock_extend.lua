-- Redlock extend, on one server: re-arm the lease only while the key still
-- holds this acquisition's token (compare-and-PEXPIRE), so an extension can
-- never revive an expired lock or lengthen another client's.
--   KEYS[1]  the lock key
--   ARGV[1]  the token written by SET key token NX PX lease
--   ARGV[2]  the new lease in ms
-- Returns 1 when extended, 0 when the key is gone or holds another token.
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
