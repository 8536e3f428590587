-- ReadWriteLock write acquire (Redisson RReadWriteLock semantics; the hash
-- is described in rw_read_acquire.lua).
--   KEYS[1]  the lock key
--   ARGV[1]  lease in ms
--   ARGV[2]  the writer's field ("<owner>:write")
--   ARGV[3]  '1': a re-entry sets the lease alone, as before redisson#1110
--            (absent or anything else: PTTL + lease)
-- Granted only when the lock is free or already write-held by this owner (a
-- re-entry). A reader, the caller included, keeps writers out: there is no
-- upgrade from read to write. A re-entry extends the lease to PTTL + lease
-- (RedissonWriteLock.tryLockInnerAsync since the fix of redisson#1110; it
-- used to set the lease alone, shortening a longer hold). Returns nil when
-- granted, else the PTTL in ms.
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call('hset', KEYS[1], 'mode', 'write', ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  if ARGV[3] == '1' then
    redis.call('pexpire', KEYS[1], ARGV[1])
  else
    redis.call('pexpire', KEYS[1], redis.call('pttl', KEYS[1]) + ARGV[1])
  end
  return nil
end
return redis.call('pttl', KEYS[1])
