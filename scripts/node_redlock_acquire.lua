-- node-redlock v5 acquire, on one server (src/index.ts, ACQUIRE_SCRIPT): all
-- of the resources or none.
--   KEYS     the resources
--   ARGV[1]  the lock's value (random, per acquisition)
--   ARGV[2]  the duration in ms
-- Returns 0 when any resource exists already (nothing is written), else the
-- number of resources, each now holding the value for the duration.
for _, key in ipairs(KEYS) do
  if redis.call('exists', key) == 1 then
    return 0
  end
end
for _, key in ipairs(KEYS) do
  redis.call('set', key, ARGV[1], 'PX', ARGV[2])
end
return #KEYS
