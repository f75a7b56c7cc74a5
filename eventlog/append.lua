-- Conditional append of one event to a game's stream, atomically.
-- KEYS[1] events stream, KEYS[2] the request's stored answer, KEYS[3] private hash
-- ARGV[1] expected seq, ARGV[2] expected head hash, ARGV[3] event json, ARGV[4] event hash,
-- ARGV[5] the request's answer to store ('' when none), ARGV[6] its ttl in seconds,
-- ARGV[7] guard: a private-hash field ('' when none) that must still hold ARGV[8],
-- ARGV[9] a channel to announce the appended event on ('' when none), ARGV[10] the game id,
-- ARGV[11..] field, value pairs to HSET into the private hash (tokens, seed)
-- Replies: {'ok', seq} | {'guard'} | {'idem', answer} | {'conflict', seq, head, entries from ARGV[1] on (at most 256)}
-- The request's answer is looked up before the head: a run repeated after a lost reply finds its first append.
if ARGV[7] ~= '' and redis.call('HGET', KEYS[3], ARGV[7]) ~= ARGV[8] then
  return {'guard'}
end
if ARGV[5] ~= '' then
  local prior = redis.call('GET', KEYS[2])
  if prior then return {'idem', prior} end
end
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
if tonumber(ARGV[1]) ~= seq + 1 or ARGV[2] ~= head then
  local tail = {}
  if seq >= tonumber(ARGV[1]) then
    tail = redis.call('XRANGE', KEYS[1], ARGV[1] .. '-0', '+', 'COUNT', 256)
  end
  return {'conflict', tostring(seq), head, tail}
end
redis.call('XADD', KEYS[1], ARGV[1] .. '-0', 'e', ARGV[3], 'h', ARGV[4])
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[2], ARGV[5], 'EX', tonumber(ARGV[6]))
end
if #ARGV > 10 then
  redis.call('HSET', KEYS[3], unpack(ARGV, 11))
end
if ARGV[9] ~= '' then
  redis.call('PUBLISH', ARGV[9], ARGV[1] .. ' ' .. ARGV[10] .. ' ' .. ARGV[3])
end
return {'ok', ARGV[1]}
