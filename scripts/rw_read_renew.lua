-- ReadWriteLock watchdog renewal of one owner's read holds (the script of
-- Redisson's renewal.ReadLockTask, for one owner): while the owner's field
-- is in the hash, every one of its read holds' timeout keys and the hash
-- get the lease again.
--   KEYS[1]  the lock key
--   KEYS[2]  the key prefix of the timeout keys, "{<key>}"
--   ARGV[1]  lease in ms
--   ARGV[2]  the reader's field (the owner)
-- Returns 1 when the owner still holds (renewed), 0 when not.
local holds = redis.call('hget', KEYS[1], ARGV[2])
if holds == false then
  return 0
end
for i = tonumber(holds), 1, -1 do
  redis.call('pexpire', KEYS[2] .. ':' .. ARGV[2] .. ':rwlock_timeout:' .. i, ARGV[1])
end
redis.call('pexpire', KEYS[1], ARGV[1])
return 1
