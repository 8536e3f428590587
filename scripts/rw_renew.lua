-- ReadWriteLock watchdog renewal, for either half: while the owner's field
-- (reader "<owner>" or writer "<owner>:write") is in the hash, raise its
-- expiry to the lease (never lower it: another holder may need longer).
--   KEYS[1]  the lock key
--   ARGV[1]  lease in ms
--   ARGV[2]  the owner's field
-- Returns 1 when the owner still holds (renewed or long enough), 0 when not.
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  if redis.call('pttl', KEYS[1]) < tonumber(ARGV[1]) then
    redis.call('pexpire', KEYS[1], ARGV[1])
  end
  return 1
end
return 0
