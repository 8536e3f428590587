-- node-redlock v5 extend, on one server (src/index.ts, EXTEND_SCRIPT): all of
-- the resources must still hold the value; each is then written again with a
-- fresh duration (SET ... PX, not PEXPIRE).
--   KEYS     the resources
--   ARGV[1]  the lock's value
--   ARGV[2]  the new duration in ms
-- Returns 0 when any resource is gone or holds another value (nothing is
-- written), else the number of resources.
for _, key in ipairs(KEYS) do
  if redis.call('get', key) ~= ARGV[1] then
    return 0
  end
end
for _, key in ipairs(KEYS) do
  redis.call('set', key, ARGV[1], 'PX', ARGV[2])
end
return #KEYS
