-- Conditional append of one event to a game's stream, atomically.
-- KEYS[1] events stream, KEYS[2] idempotency key, KEYS[3] private hash
-- ARGV[1] expected seq, ARGV[2] expected head hash, ARGV[3] event json, ARGV[4] event hash,
-- ARGV[5] idempotency record ('' when none), ARGV[6] idempotency ttl seconds,
-- ARGV[7..] field, value pairs to HSET into the private hash (tokens, seed)
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local seq = 0
local head = string.rep('0', 64)
if #last > 0 then
  seq = tonumber(string.match(last[1][1], '^(%d+)-'))
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'h' then head = fields[i + 1] end
  end
end
if ARGV[5] ~= '' then
  local prior = redis.call('GET', KEYS[2])
  if prior then return {'idem', prior} end
end
if tonumber(ARGV[1]) ~= seq + 1 or ARGV[2] ~= head then
  return {'conflict', tostring(seq), head}
end
redis.call('XADD', KEYS[1], ARGV[1] .. '-0', 'e', ARGV[3], 'h', ARGV[4])
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[2], ARGV[5], 'EX', tonumber(ARGV[6]))
end
if #ARGV > 6 then
  redis.call('HSET', KEYS[3], unpack(ARGV, 7))
end
return {'ok', ARGV[1]}
