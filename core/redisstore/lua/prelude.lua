-- floodgate redisstore prelude: shared helpers. All instants and durations
-- are integer microseconds held in Lua doubles (exact below 2^53).
local NEVER = -1
local floor, ceil, fmod = math.floor, math.ceil, math.fmod
local function nonneg(x) if x < 0 then return 0 end return x end
local function imax(a, b) if a > b then return a end return b end
local function imin(a, b) if a < b then return a end return b end
-- fdiv is floor(a/b) for integers a >= 0, b > 0, corrected for rounding.
local function fdiv(a, b)
  local q = floor(a / b)
  if q * b > a then q = q - 1 elseif (q + 1) * b <= a then q = q + 1 end
  return q
end
-- cdiv is ceil(a/b) for integers a >= 0, b > 0.
local function cdiv(a, b)
  local q = fdiv(a, b)
  if q * b < a then q = q + 1 end
  return q
end
-- aligned is t - t mod w for t >= 0.
local function aligned(t, w) return t - fmod(t, w) end
local function zeros(n) local s = {} for i = 1, n do s[i] = 0 end return s end
-- split returns a ns duration as whole µs and the ns remainder.
local function split(ns)
  local us = floor(ns / 1000)
  if us * 1000 > ns then us = us - 1 end
  return us, ns - us * 1000
end
-- firstTrue is core's: the least x in [lo, hi] with p(x), p monotone.
local function firstTrue(lo, guess, hi, p)
  guess = imin(imax(guess, lo), hi)
  local bad, good
  local step = 1
  if p(guess) then
    bad, good = lo - 1, guess
    while good > lo do
      local x = lo
      if good - lo > step then x = good - step end
      if not p(x) then bad = x break end
      good = x
      step = imin(2 * step, 2305843009213693952)
    end
  else
    bad, good = guess, hi
    while bad < hi do
      local x = hi
      if hi - bad > step then x = bad + step end
      if p(x) then good = x break end
      bad = x
      step = imin(2 * step, 2305843009213693952)
    end
  end
  while good - bad > 1 do
    local mid = bad + floor((good - bad) / 2)
    if p(mid) then good = mid else bad = mid end
  end
  return good
end
-- TSEC is the seconds of the last Redis TIME read, TSECUS the same in µs:
-- a string compared by reference (Lua interns strings), so that reading
-- TIME parses only its µs while the second stays the same.
local TSEC, TSECUS = '', 0
-- ONTIME is true while the request being decided reads Redis TIME (set by
-- each entry point before it decides). Only then is a now before the
-- decision that wrote a state (its seen) proof of a clock that went back: Redis runs one script at a time, and
-- its TIME never reads earlier than a decision already made on this
-- server, unless the server's clock was stepped back or the key came from
-- a server whose clock ran ahead (a failover, a slot migration). A caller's
-- clock (CallerClock) may lag another caller's, and is decided at the
-- key's latest instant, as the memory store decides it.
local ONTIME = false
local ALG = {}
-- decnums returns the numbers of v, a decimal list joined by commas (a
-- refund's argument), or nil unless it holds exactly n of them.
local sfind, ssub, sbyte, srep, spack, sunpack, tconcat = string.find, string.sub, string.byte, string.rep, struct.pack, struct.unpack, table.concat
-- sformat writes a TTL for SET PX: an integer as '%d', which costs Redis
-- less than the '%.17g' it writes a number argument with.
local sformat = string.format
local function decnums(v, n)
  local s, j, pos = {}, 0, 1
  while true do
    local c = sfind(v, ',', pos, true)
    local x
    if c then x = tonumber(ssub(v, pos, c - 1)) else x = tonumber(ssub(v, pos)) end
    if x == nil then return nil end
    j = j + 1
    s[j] = x
    if not c then break end
    pos = c + 1
  end
  if j ~= n then return nil end
  return s
end
-- State codec: a key's value is its limit's words, then born (the instant,
-- in µs, its state was created: a refund of a take made before gives
-- nothing back, see step.lua), exp (an instant, in µs, before which
-- Redis keeps the key: its TTL as last set, less a millisecond) and seen
-- (the instant, in µs, of the decision that wrote it: see settle), as
-- little-endian doubles (exact: every word is an integer below 2^53 or
-- TokenBucket's and WarmUp's doubles). codec gives limit L its format.
local function codec(L)
  L.fmt = '<' .. srep('d', L.words + 3)
  L.size = 8 * (L.words + 3)
  L.zero = L.fresh()
end
-- decode returns the state in v, its born, exp and seen, or nil unless v
-- is a record of L.
local function decode(L, v)
  if #v ~= L.size then return nil end
  local w = L.words
  local s = {sunpack(L.fmt, v)}
  local born, exp, seen = s[w + 1], s[w + 2], s[w + 3]
  s[w + 1], s[w + 2], s[w + 3], s[w + 4] = nil, nil, nil, nil
  return s, born, exp, seen
end
local function encode(L, s, born, exp, seen)
  local w = L.words
  s[w + 1], s[w + 2], s[w + 3] = born, exp, seen
  local v = spack(L.fmt, unpack(s, 1, w + 3))
  s[w + 1], s[w + 2], s[w + 3] = nil, nil, nil
  return v
end
-- settle brings a state of L written at seen back by as much as the
-- clock went back since, when the request reads Redis TIME and now is
-- before seen: its instants move back by seen - now (L.shift), so that
-- the state stands to now as it stood to the decision that wrote it, and
-- recovers as soon after now as it would have after seen. Without it a key
-- stayed denied for as long as the clock went back (hours, for a clock
-- stepped back hours). Only the clock's step proves a clock went back: a
-- state ahead of now by more than this policy's limit can hold may have
-- been written under larger quotas or bursts (a reload, a fleet's other
-- processes, an override: one shape, one key), and must keep its debt.
-- seen is at most the latest decision on the key (a denial writes
-- nothing), so the state never moves further than the clock went back,
-- and admits no more than it would have at seen. It reports whether it
-- moved s (the caller then writes it, with now as its seen, also on a
-- denial or a peek, so that no later call moves it again).
-- stamp is the seen a write at now records: now on Redis TIME, else the
-- key's seen as read (0 for none). A caller's clock (CallerClock) may run
-- ahead of TIME by its skew: its instant as seen would read to the next
-- decision on TIME as a clock that went back, and every such pair would
-- move the state back by the skew, without bound.
local function stamp(now, seen)
  if ONTIME then return now end
  return seen or 0
end
local function settle(L, s, now, seen)
  if not ONTIME or not seen or seen <= now or not L.shift then return false end
  L.shift(s, seen - now)
  return true
end
-- reborn is the born a state settle moved records: after seen, so that
-- a refund of a take made at or before seen (before the step) gives
-- nothing back, however far the clock later runs past the take's
-- instant (retaken could not then tell it from a take since: the amount
-- the state moved is not kept). On Redis TIME a take at a now before
-- born (since the step, before the clock caught up) leaves born as it
-- is: its refund gives nothing back either.
local function reborn(born, seen)
  if born > seen then return born end
  return seen + 1
end
-- retaken returns the instant of a take at t, of a key of L with exp and
-- seen as read, on the clock of the state a refund at now gives it back
-- to, or nil when what the take holds is not known there (the refund
-- gives that limit nothing back). On Redis TIME a take that wrote the key
-- wrote its instant as seen, and seen moves forward only while the clock
-- does: when settle moves the state back, the take's instant moves with
-- it (or the refund, measuring the take's hold from the instant before
-- the step, gave back as held a cost whose hold had ended, out of the
-- takes made since); a take after seen was made before a step a decision
-- settled since by an amount not kept (so was one on a key written since
-- by no decision on TIME, seen 0). A caller's clock is decided at the
-- key's latest instant: unchanged.
local function retaken(L, t, now, exp, seen)
  if not ONTIME or not exp or not L.shift then return t end
  if not seen or t > seen then return nil end
  if seen <= now then return t end
  if L.moves then return t - L.moves(seen - now) end
  return t - (seen - now)
end
