-- floodgate redisstore batch: decides several requests of one policy in
-- order, exactly as one main call each would, one after another. KEYS =
-- the #LIMITS keys of each request in turn, and after a refund's or a
-- reset's its marker (see step.lua); ARGV = expiry slack (ms), then
-- per request op, cost, now (µs, or -1 for Redis TIME, read once), taken
-- (see step.lua), or for a take on Redis TIME its cost alone. Each limit
-- key is read at most once and written (SET, or DEL) at most once, at the
-- end, with its last state, except that a take of a policy of one GCRA or
-- LeakyBucket limit on a key the batch has not met yet reads and writes it
-- at once (see gtake in step.lua): at most twice each. Reply: one
-- string (the store reads it into a buffer of its own), each request's
-- part in order: 'r' and its record, or 'c' and its short record (see
-- step.lua), or 'e', its error's text (at most 200 bytes) and a NUL byte.
if gbatch and #ARGV == #KEYS + 1 and #KEYS <= 2048 then
  -- Takes on Redis TIME only, on a policy of one GCRA or LeakyBucket
  -- limit (one argument per key): see gbatch in step.lua.
  return gbatch(KEYS, ARGV)
end
local slack = tonumber(ARGV[1])
local C = {rec = {}, w = {}, order = {}, n = 0, thru = {}}
local out, time, k0, j, a, m = {}, nil, 0, 0, 2, #ARGV
while a <= m do
  local op, cost, now, taken = ARGV[a], nil, -1, nil
  if sbyte(op) <= 57 then
    -- A digit: a take of that cost on Redis TIME, in one argument (the
    -- usual cost, 1, without parsing a number).
    cost = 1
    if op ~= '1' then cost = op + 0 end
    op = 'T'
    a = a + 1
  else
    cost, now, taken = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), ARGV[a + 3]
    a = a + 4
  end
  ONTIME = now < 0
  if now < 0 then
    if not time then
      local t = redis.call('TIME')
      if t[1] ~= TSEC then TSEC, TSECUS = t[1], t[1] * 1000000 end
      time = TSECUS + t[2]
    end
    now = time
  end
  j = j + 1
  out[j] = part(KEYS, k0, op, cost, now, taken, slack, C)
  k0 = k0 + NL
  if op == 'F' or op == 'R' then k0 = k0 + 1 end
end
for i = 1, C.n do
  local key = C.order[i]
  local r = C.rec[key]
  if not r then
    redis.call('DEL', key)
  elseif r.px then
    redis.call('SET', key, encode(r.L, r.s, r.born, r.exp, r.seen), 'PX', sformat('%d', r.px))
  else
    redis.call('SET', key, encode(r.L, r.s, r.born, r.exp, r.seen), 'KEEPTTL')
  end
end
return tconcat(out)
