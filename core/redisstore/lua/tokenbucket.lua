-- TokenBucket, with x/time/rate's float64 arithmetic: st[1] tokens (a
-- double), st[2] the instant (µs) of the last admitted take or refund.
-- Searches run on nanosecond offsets from st[2], below 2^53 (the store
-- refuses buckets that take 2^52 ns or more to fill).
local HI = 9007199254740992 -- 2^53
function ALG.tokenbucket(limit, burst)
  local A = {words = 2, drift = true}
  function A.fresh() return {burst, 0} end
  -- secsNS and secsUS are time.Duration.Seconds of a ns or µs duration.
  local function secsNS(ns)
    local s = fdiv(ns, 1000000000)
    return s + (ns - s * 1000000000) / 1e9
  end
  local function secsUS(us)
    local s = fdiv(us, 1000000)
    return s + ((us - s * 1000000) * 1000) / 1e9
  end
  local function refilled(tokens, secs)
    local t = tokens + secs * limit
    if t > burst then t = burst end
    return t
  end
  local function admits(after)
    if not (after < 0) then return true end
    return (-after / limit) * 1e9 < 1
  end
  local function whole(t)
    if not (t >= 1) then return 0 end
    if t >= burst then return burst end
    return floor(t)
  end
  local function nsFor(x)
    local d = ceil(x / limit * 1e9)
    if not (d >= 0) then return 0 end
    if d > HI then return HI end
    return d
  end
  -- fullIn is the ns from the bucket's instant until it is full.
  local function fullIn(tokens)
    if tokens >= burst then return 0 end
    return firstTrue(0, nsFor(burst - tokens), HI, function(e) return refilled(tokens, secsNS(e)) >= burst end)
  end
  -- until returns now..(last µs + e ns) in ns, at least 0 when clamp.
  local function span(last, e, now)
    return (last - now) * 1000 + e
  end
  function A.take(st, now, cost, commit)
    local tokens, last = st[1], st[2]
    local t = imax(now, last)
    local have = refilled(tokens, secsUS(t - last))
    if cost > burst then
      local ru, rr = split(nonneg(span(last, fullIn(tokens), now)))
      return false, whole(have), ru, NEVER, 0, rr, 0
    end
    local after = have - cost
    if not admits(after) then
      local ru, rr = split(nonneg(span(last, fullIn(tokens), now)))
      local lo = imax(0, (now - last) * 1000)
      local e = firstTrue(lo + 1, imax(lo + 1, nsFor(cost - tokens)), imax(lo + 1, HI),
        function(x) return admits(refilled(tokens, secsNS(x)) - cost) end)
      local tu, tr = split(span(last, e, now))
      return false, whole(have), ru, tu, 0, rr, tr
    end
    if cost == 0 then
      -- A report of the state as it stands: full when the stored bucket is.
      local ru, rr = split(nonneg(span(last, fullIn(tokens), now)))
      return true, whole(have), ru, 0, 0, rr, 0
    end
    if commit then st[1], st[2] = after, t end
    local ru, rr = split(nonneg(span(t, fullIn(after), now)))
    return true, whole(after), ru, 0, 0, rr, 0
  end
  function A.denied() return false end
  function A.refund(st, now, taken, cost, rem)
    local tokens, last = st[1], st[2]
    local t = imax(now, last)
    -- What the take still holds: the tokens refilled from now to its end.
    local give = imin(cost, burst)
    local held = secsNS(rem) * limit
    if held < give then give = held end
    local v = refilled(tokens, secsUS(t - last)) + give
    if v > burst then v = burst end
    st[1], st[2] = v, t
  end
  function A.idle(st) return st[2] + cdiv(fullIn(st[1]), 1000) end
  function A.shift(st, d) st[2] = st[2] - d end
  return A
end
