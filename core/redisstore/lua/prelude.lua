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
local ALG = {}
-- State codec: a limit's words as decimal numbers joined by commas,
-- integers (all but TokenBucket's and WarmUp's fractions) in %d, which is
-- exact and cheaper than %.17g.
local sfind, ssub, sformat, tconcat = string.find, string.sub, string.format, table.concat
local function num(x)
  if x == floor(x) and x < 9007199254740992 and x > -9007199254740992 then return sformat('%d', x) end
  return sformat('%.17g', x)
end
local function encode(s, words)
  if words == 1 then return num(s[1]) end
  local parts = {}
  for j = 1, words do parts[j] = num(s[j]) end
  return tconcat(parts, ',')
end
-- decode returns the words of v, or nil unless it holds exactly words
-- numbers.
local function decode(v, words)
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
  if j ~= words then return nil end
  return s
end
