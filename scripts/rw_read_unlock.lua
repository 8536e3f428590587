-- ReadWriteLock release of one read hold (RedissonReadLock.unlockInnerAsync).
--   KEYS[1]  the lock key
--   KEYS[2]  the lock's channel, redisson_rwlock:{<key>}
--   KEYS[3]  the owner's timeout prefix, "{<key>}:<owner>:rwlock_timeout"
--   KEYS[4]  the key prefix of every owner's timeout keys, "{<key>}"
--   KEYS[5]  the unlock latch, redisson_unlock_latch:{<key>}:<request id>
--   ARGV[1]  the unlock message
--   ARGV[2]  the reader's field (the owner)
--   ARGV[3]  how long the latch lives, ms; 0: no latch (KEYS[5] unused)
-- With a latch, a result stored by an earlier run with the same request id
-- is returned instead of releasing again. Returns nil when the owner holds
-- no read lock here (when nobody holds the lock at all, waiters are told
-- anyway); 0 when the hash still holds someone: its expiry becomes the
-- longest lease left among the live read holds' timeout keys (a writer
-- re-entering its own read lock keeps its own expiry); 1 when it was the
-- last live hold: the key is deleted and waiters are told on the channel.
local latch = tonumber(ARGV[3]) > 0
if latch then
  local done = redis.call('get', KEYS[5])
  if done then
    return tonumber(done)
  end
end
local function finish(result)
  if latch then
    redis.call('set', KEYS[5], result, 'px', ARGV[3])
  end
  return result
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call('publish', KEYS[2], ARGV[1])
  if latch then
    redis.call('set', KEYS[5], 1, 'px', ARGV[3])
  end
  return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
  return nil
end
local holds = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if holds == 0 then
  redis.call('hdel', KEYS[1], ARGV[2])
end
redis.call('del', KEYS[3] .. ':' .. (holds + 1))
if redis.call('hlen', KEYS[1]) > 1 then
  local longest = -3
  for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
    local count = tonumber(redis.call('hget', KEYS[1], field))
    if type(count) == 'number' then
      for i = count, 1, -1 do
        local left = redis.call('pttl', KEYS[4] .. ':' .. field .. ':rwlock_timeout:' .. i)
        longest = math.max(left, longest)
      end
    end
  end
  if longest > 0 then
    redis.call('pexpire', KEYS[1], longest)
    return finish(0)
  end
  if mode == 'write' then
    return finish(0)
  end
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], ARGV[1])
return finish(1)
