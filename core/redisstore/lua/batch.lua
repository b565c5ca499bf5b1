-- floodgate redisstore batch: decides several requests of one policy in
-- order, exactly as one main call each would, one after another. KEYS =
-- the #LIMITS keys of each request in turn, and after a refund's or a
-- reset's its marker (see step.lua); ARGV = expiry slack (ms), then
-- per request op, cost, now (µs, or -1 for Redis TIME, read once), taken
-- (see step.lua). Each limit key is read at most once and written (SET with PX, or DEL)
-- at most once, at the end, with its last state. Reply: each request's
-- main reply (or error reply), in order.
local slack = tonumber(ARGV[1])
local n = #LIMITS
local C = {val = {}, px = {}, order = {}, n = 0}
local out, time, k0 = {}, nil, 0
local m = (#ARGV - 1) / 4
for j = 1, m do
  local a = 1 + (j - 1) * 4
  local now = tonumber(ARGV[a + 3])
  if now < 0 then
    if not time then
      local t = redis.call('TIME')
      time = tonumber(t[1]) * 1000000 + tonumber(t[2])
    end
    now = time
  end
  out[j] = step(KEYS, k0, ARGV[a + 1], tonumber(ARGV[a + 2]), now, ARGV[a + 4], slack, C)
  k0 = k0 + n
  if ARGV[a + 1] == 'F' or ARGV[a + 1] == 'R' then k0 = k0 + 1 end
end
for i = 1, C.n do
  local key = C.order[i]
  local px = C.px[key]
  if px then redis.call('SET', key, C.val[key], 'PX', px) else redis.call('DEL', key) end
end
return out
