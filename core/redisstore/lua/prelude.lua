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
local ALG = {}
