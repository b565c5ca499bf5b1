-- sync.lua: one node's round for a batch of keys, in one call: it pushes
-- what the node admitted, reads the merged state back and claims (windows)
-- or leases (buckets) the node's part of what remains.
--
-- KEYS are hashes; every key of one call shares a hash tag on a Cluster.
-- A window hash holds one window of one limit, a bucket hash one span of
-- one limit; in both, a field per key (a digest), whose value is a
-- MessagePack array. Each hash the call touches costs one HMGET, one HSET,
-- one PTTL and one PEXPIRE at most (more only beyond 4,000 fields),
-- whatever the number of keys: the work per key is in the script.
--
-- ARGV[1] is the node's id, ARGV[2] its clock in ms, ARGV[3] how long a
-- claim or lease lives in ms, ARGV[4] how long a node that synced a bucket
-- counts as sharing it, in ms. Then five values per hash of KEYS: the TTL
-- set on it in ms, and for a bucket hash two parameters q1, q2 (GCRA: the
-- emission interval and the tolerance, in ns; token bucket: the burst and
-- the tokens per ns), the span in ns and the node's clock in ns since the
-- span's start (0s for a window hash). Then the items:
--   window: 'w', its hash (index in KEYS), the field, what the node
--     pushes, the room (the limit less what the previous window still
--     weighs; −1 claims nothing), the node's guess of the nodes sharing
--     the key, what the node's live claim still holds once the push is
--     counted (Redis never reserves less for the node: a node whose
--     reply is lost spends the claim it holds; the reply carries the new
--     claim, which the node spends from then on);
--   bucket: 'g' (a GCRA) or 't' (a token bucket), its hash, the previous
--     span's hash, the field, what the node pushes, units of former leases
--     to give back, the hold's end of the latest (ns since the span's
--     start), the units the node would lease (0: none), its guess of the
--     sharers.

-- Window value: {total, id, claim, claimed at (ms), id, ...}: each node
-- registered in the window and its claim (−1: none). Returns, per window item: the total after the call (never below
-- 0), the nodes registered, the other nodes' live claims, the divisor of
-- this node's claim and the claim (−1: none).
--
-- Bucket value: {state, at, id, synced (ms), lease, lease end (ms), ...}:
-- GCRA's TAT (ns since the span's start, of the hash it is in), or a token
-- bucket's tokens and the instant they were counted at; each node that
-- synced it within ARGV[4] or holds a live lease. Returns, per bucket
-- item: the state before the lease (a token bucket's as "%.17g"), its
-- instant, the units leased, the sharers (this node included), the lease's
-- hold end (ns since the span's start).
local id = ARGV[1]
local nowms, life, horizon = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local H, CHUNK = 4 + 5 * #KEYS, 4000
local floor, max, min, fmt = math.floor, math.max, math.min, string.format
local pack, decode = cmsgpack.pack, cmsgpack.unpack

-- Where each item starts, the fields of each hash, and where each item's
-- value is.
local start, fields, pos = {}, {}, {}
local function need(h, f)
  local w = fields[h]
  if not w then
    w = {}
    fields[h] = w
  end
  w[#w + 1] = f
  return #w
end
local b = H
while b < #ARGV do
  local i = #start + 1
  start[i] = b
  if ARGV[b + 1] == 'w' then
    pos[2 * i - 1] = need(tonumber(ARGV[b + 2]), ARGV[b + 3])
    b = b + 7
  else
    local f = ARGV[b + 4]
    pos[2 * i - 1] = need(tonumber(ARGV[b + 2]), f)
    pos[2 * i] = need(tonumber(ARGV[b + 3]), f)
    b = b + 9
  end
end
local got = {}
for h, fs in pairs(fields) do
  local vals = {}
  for c = 1, #fs, CHUNK do
    local r = redis.call('HMGET', KEYS[h], unpack(fs, c, min(c + CHUNK - 1, #fs)))
    for j = 1, #r do
      vals[c + j - 1] = r[j]
    end
  end
  got[h] = vals
end

local writes, out = {}, {}
local function put(h, f, v)
  local w = writes[h]
  if not w then
    w = {}
    writes[h] = w
  end
  w[#w + 1] = f
  w[#w + 1] = v
end

-- A window: push, register, claim.
local function window(v, push, room, guess, keep)
  local a = v and decode(v) or { 0 }
  local t = max(a[1] or 0, 0)
  local nodes, others, holders, mine = 0, 0, 0, nil
  for j = 2, #a, 3 do
    nodes = nodes + 1
    if a[j] == id then
      mine = j
    elseif a[j + 1] > 0 and nowms - a[j + 2] < life then
      -- A live claim of 0 holds nothing: its node shares what remains.
      others = others + a[j + 1]
      holders = holders + 1
    end
  end
  local changed = push ~= 0
  if not mine and (push ~= 0 or room >= 0) then
    mine = #a + 1
    a[mine], a[mine + 1], a[mine + 2] = id, -1, 0
    nodes = nodes + 1
    changed = true
  end
  t = max(t + push, 0)
  a[1] = t
  local div, claim = 1, -1
  if room >= 0 then
    div = max(1, max(guess, nodes) - holders)
    local rest = room - t - others
    claim = max(0, floor(rest / div))
    if claim == 0 and rest >= 1 then
      -- The last units, fewer than the nodes sharing them, go whole to
      -- one node (with the divisor that lets it spend them): a request
      -- of several units finds them together.
      claim, div = rest, 1
    end
    -- Redis reserves what the node's live claim still holds (it spends
    -- that until the reply, and on if the reply is lost), the node
    -- spends the new claim: a claim the node does not use shrinks at its
    -- next round, not never.
    a[mine + 1], a[mine + 2] = max(claim, keep), nowms
    changed = true
  end
  return changed and pack(a) or nil, t, nodes, others, div, claim
end

-- A bucket: give back, push, register, lease.
local function bucket(gcra, v, now, shift, push, ret, untl, want, guess, q1, q2)
  local a = v and decode(v) or nil
  local x, at
  if gcra then
    x, at = a and a[1] - shift or 0, now
  elseif a then
    x = min(q1, a[1] + max(0, now - (a[2] - shift)) * q2)
    at = max(now, a[2] - shift)
  else
    x, at = q1, now
  end
  if ret > 0 then
    if gcra then
      local give = min(ret * q1, untl - now)
      if give > 0 then
        x = max(x - give, min(x, now))
      end
    else
      local give = min(ret, q1, (untl - now) * q2)
      if give > 0 then
        x = min(q1, x + give)
      end
    end
  end
  if push > 0 then
    -- Units admitted without a lease are charged in full, beyond the burst
    -- if other nodes' leases took it meanwhile (the fleet pays them back),
    -- up to one more burst.
    if gcra then
      x = min(max(x, now) + push * q1, now + 2 * q2)
    else
      x = max(x - push, -q1)
    end
  end
  local pre = x
  local keep, sharers, holders = { 0, at }, 1, 0
  if a then
    for j = 3, #a, 4 do
      local node, synced, units, ends = a[j], a[j + 1], a[j + 2], a[j + 3]
      if node ~= id and (nowms - synced < horizon or ends > nowms) then
        local k = #keep
        keep[k + 1], keep[k + 2], keep[k + 3], keep[k + 4] = node, synced, units, ends
        sharers = sharers + 1
        if ends > nowms and units > 0 then
          holders = holders + 1
        end
      end
    end
  end
  local lease, hold = 0, 0
  if want > 0 then
    local avail
    if gcra then
      avail = floor((q2 - max(x - now, 0)) / q1)
    else
      avail = floor(x)
    end
    if avail > 0 then
      lease = min(want, max(floor(avail / max(1, max(guess, sharers) - holders)), 1))
      if gcra then
        x = max(x, now) + lease * q1
        hold = x
      else
        x = x - lease
        hold = at + (q1 - x) / q2
      end
    end
  end
  keep[1] = x
  local k = #keep
  keep[k + 1], keep[k + 2], keep[k + 3], keep[k + 4] = id, nowms, lease, lease > 0 and nowms + life or 0
  return pack(keep), pre, at, lease, sharers, hold
end

for i = 1, #start do
  local b = start[i]
  local kind, h1 = ARGV[b + 1], tonumber(ARGV[b + 2])
  local o = 5 * (i - 1)
  if kind == 'w' then
    local f, push, room, guess = ARGV[b + 3], tonumber(ARGV[b + 4]), tonumber(ARGV[b + 5]), tonumber(ARGV[b + 6])
    local w, t, nodes, others, div, claim = window(got[h1][pos[2 * i - 1]], push, room, guess, tonumber(ARGV[b + 7]))
    if w then
      put(h1, f, w)
    end
    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = t, nodes, others, div, claim
  else
    local h2, f = tonumber(ARGV[b + 3]), ARGV[b + 4]
    local k = 4 + 5 * (h1 - 1)
    local q1, q2, span, now = tonumber(ARGV[k + 2]), tonumber(ARGV[k + 3]), tonumber(ARGV[k + 4]), tonumber(ARGV[k + 5])
    local v, shift = got[h1][pos[2 * i - 1]], 0
    if not v then
      v, shift = got[h2][pos[2 * i]], span
    end
    local w, pre, at, lease, sharers, hold = bucket(kind == 'g', v, now, shift, tonumber(ARGV[b + 5]), tonumber(ARGV[b + 6]),
      tonumber(ARGV[b + 7]), tonumber(ARGV[b + 8]), tonumber(ARGV[b + 9]), q1, q2)
    put(h1, f, w)
    if kind == 't' then
      pre = fmt('%.17g', pre) -- tokens: a fraction
    end
    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = pre, floor(at), lease, sharers, floor(hold)
  end
end

for h, w in pairs(writes) do
  for c = 1, #w, 2 * CHUNK do
    redis.call('HSET', KEYS[h], unpack(w, c, min(c + 2 * CHUNK - 1, #w)))
  end
  -- A TTL only grows: the node's clock sets it from the window's (or the
  -- span's) end, and a node whose clock runs ahead of the others' would
  -- cut it short of theirs, expiring a count they still decide on.
  local ttl = tonumber(ARGV[5 + 5 * (h - 1)])
  if redis.call('PTTL', KEYS[h]) < ttl then
    redis.call('PEXPIRE', KEYS[h], ttl)
  end
end
return out
