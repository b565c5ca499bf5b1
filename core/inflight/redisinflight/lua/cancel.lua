-- Cancels the lease ARGV[1] of KEYS[1], of an Acquire whose caller gave
-- up (or that failed) while its script was on its way: removes the lease
-- if the script ran, and sets KEYS[2], the lease's tombstone, for ARGV[2]
-- ms, so that the script, if it reaches Redis only later (sent on a
-- connection slower than this one, or sent again), takes nothing.
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return 1
