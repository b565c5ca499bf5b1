-- FixedWindow: st[1] count, st[2] window start.
function ALG.fixedwindow(limit, window, anchored)
  local A = {words = 2}
  function A.fresh() return {0, 0} end
  local function current(st, now)
    local count, start = st[1], st[2]
    if count > 0 and now - start < window then return imin(count, limit), start end
    -- core's: a window refunds emptied counts an older caller.
    if count <= 0 and start ~= 0 and now < start then return 0, start end
    if anchored then return 0, now end
    return 0, aligned(now, window)
  end
  function A.take(st, now, cost, commit)
    local count, start = current(st, now)
    local e = start + window
    if cost > limit - count then
      local reset, retry = 0, e - now
      if count > 0 then reset = e - now end
      if cost > limit then retry = NEVER end
      return false, limit - count, reset, retry, 0
    end
    if commit then st[1], st[2] = count + cost, start end
    -- core's: a report of cost 0 on an empty window has nothing to reset.
    if count + cost == 0 then return true, limit, 0, 0, 0 end
    return true, limit - count - cost, e - now, 0, 0
  end
  function A.denied() return false end
  function A.refund(st, now, taken, cost)
    local count, start = st[1], st[2]
    if count <= 0 or taken < start or taken - start >= window then return end
    st[1] = count - imin(cost, count) -- an emptied window keeps its start
  end
  function A.idle(st)
    if st[1] <= 0 and st[2] == 0 then return 0 end
    return st[2] + window
  end
  function A.shift(st, d) st[2] = st[2] - d end
  return A
end
