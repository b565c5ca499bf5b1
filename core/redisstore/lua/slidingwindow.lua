-- SlidingWindow: st[1] prev, st[2] curr, st[3] current window start.
-- limit*window stays below 2^53 (checked by the store), so the products
-- below are exact.
function ALG.slidingwindow(limit, window)
  local A = {words = 3}
  function A.fresh() return {0, 0, 0} end
  local function at(st, now)
    local prev, curr, start = imin(imax(st[1], 0), limit), imin(imax(st[2], 0), limit), st[3]
    if prev == 0 and curr == 0 then return 0, 0, aligned(now, window), now end
    if now < start then return prev, curr, start, start end
    if now - start < window then return prev, curr, start, now end
    if now - start < 2 * window then return curr, 0, start + window, now end
    return 0, 0, aligned(now, window), now
  end
  local function weighted(prev, rest) return cdiv(prev * rest, window) end
  -- Admission instants are found in ns, as core does, when the products
  -- stay below 2^53 (else in µs: later, never earlier). They are kept as
  -- whole µs and a ns remainder: a window of over 2^53 ns (104 days) in
  -- ns would not be exact in a double.
  local W, unit = window * 1000, 1
  if limit * W >= 9007199254740992 then W, unit = window, 1000 end
  local function minElapsed(prev, room) -- µs, ns
    if prev <= room then return 0, 0 end
    local e = W - fdiv(room * W, prev)
    if unit == 1000 then return e, 0 end
    return split(e)
  end
  -- firstAdmit returns the µs and ns from start until cost is admitted.
  local function firstAdmit(prev, curr, cost)
    local room = limit - curr - cost
    if room >= 0 then
      local eu, en = minElapsed(prev, room)
      if eu < window then return eu, en end
    end
    local eu, en = minElapsed(curr, limit - cost)
    if eu < window then return window + eu, en end
    return 2 * window, 0
  end
  function A.take(st, now, cost, commit)
    local prev, curr, start, eff = at(st, now)
    local avail = limit - curr - weighted(prev, start + window - eff)
    if cost > avail then
      local reset, retry, rr = 0, NEVER, 0
      if curr > 0 then reset = start + 2 * window - now
      elseif prev > 0 then reset = start + window - now end
      if cost <= limit then
        local eu, en = firstAdmit(prev, curr, cost)
        retry, rr = start - now + eu, en
      end
      return false, imax(avail, 0), reset, retry, 0, 0, rr
    end
    if commit then st[1], st[2], st[3] = prev, curr + cost, start end
    -- core's: a report of cost 0 may find curr, or both counts, empty.
    local reset = 0
    if curr + cost > 0 then reset = start + 2 * window - now
    elseif prev > 0 then reset = start + window - now end
    return true, avail - cost, reset, 0, 0
  end
  function A.denied() return false end
  function A.refund(st, now, taken, cost)
    local prev, curr, start = st[1], st[2], st[3]
    if prev <= 0 and curr <= 0 then return end
    if taken >= start and taken - start < window then
      curr = curr - imin(cost, imax(curr, 0))
    elseif taken < start and start - taken <= window then
      prev = prev - imin(cost, imax(prev, 0))
    else
      return
    end
    if prev <= 0 and curr <= 0 then prev, curr, start = 0, 0, 0 end
    st[1], st[2], st[3] = prev, curr, start
  end
  function A.idle(st)
    if st[2] > 0 then return st[3] + 2 * window end
    if st[1] > 0 then return st[3] + window end
    return 0
  end
  function A.shift(st, d) st[3] = st[3] - d end
  return A
end
