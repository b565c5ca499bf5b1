-- Hybrid: st[1] mode (0 bursty, 1 exhausted, 2 smooth); bursty: st[2]
-- window start, st[3] count; smooth: st[2] TAT, st[3] exhausted window's
-- start.
function ALG.hybrid(limit, window, iv, tol)
  local A = {words = 3, drift = true}
  function A.fresh() return {0, 0, 0} end
  local function bursty(st, start, count, now, cost, commit)
    local e = start + window
    if cost > limit - count then
      local retry, reset = e - now, e - now
      if cost > limit then retry = NEVER end
      if count == 0 then reset = 0 end
      -- core's: a count kept above a lowered limit leaves nothing.
      return false, imax(limit - count, 0), reset, retry, 0
    end
    count = count + cost
    if count == limit then
      -- core's: in debt until the window ends, one unit back at its end.
      local tat = e + tol - iv
      if commit then st[1], st[2], st[3] = 1, tat, start end
      return true, 0, tat - now, 0, 0
    end
    if commit then st[1], st[2], st[3] = 0, start, count end
    -- core's: a report of cost 0 on an empty window has nothing to reset.
    if count == 0 then return true, limit, 0, 0, 0 end
    return true, limit - count, e - now, 0, 0
  end
  local function smooth(st, tat, now, cost, commit)
    local debt = tat - now
    if cost > limit then return false, fdiv(nonneg(tol - debt), iv), debt, NEVER, 0 end
    local diff = debt + cost * iv
    if diff > tol then return false, fdiv(nonneg(tol - debt), iv), debt, diff - tol, 0 end
    if commit then st[1], st[2] = 2, now + diff end
    return true, fdiv(tol - diff, iv), diff, 0, 0
  end
  function A.take(st, now, cost, commit)
    if st[1] ~= 0 then
      local tat = st[2]
      if tat > now then return smooth(st, tat, now, cost, commit) end
      return bursty(st, now, 0, now, cost, commit)
    end
    local start, count = st[2], st[3]
    if count == 0 or now - start >= window then return bursty(st, now, 0, now, cost, commit) end
    return bursty(st, start, count, now, cost, commit)
  end
  function A.denied() return false end
  function A.refund(st, now, taken, cost, rem, remU)
    cost = imin(cost, limit)
    if st[1] == 0 then
      local start, count = st[2], st[3]
      if count == 0 or now - start >= window or taken < start or taken - start >= window then return end
      if count <= cost then st[1], st[2], st[3] = 0, 0, 0 return end
      st[3] = count - cost
      return
    end
    local tat, start = st[2], st[3]
    if tat <= now or taken < start then return end
    if st[1] == 1 and now - start < window and taken - start < window then
      if cost == limit then st[1], st[2], st[3] = 0, 0, 0
      else st[1], st[2], st[3] = 0, start, limit - cost end
      return
    end
    st[1], st[2] = 2, imax(tat - imin(cost * iv, remU), now)
  end
  function A.idle(st)
    if st[1] ~= 0 then return st[2] end
    if st[3] == 0 then return -1 end
    return st[2] + window
  end
  function A.shift(st, d)
    st[2] = st[2] - d
    if st[1] ~= 0 then st[3] = st[3] - d end -- the exhausted window's start
  end
  return A
end
