package redisinflight

// Outstanding is the round trips of l to Redis not yet over (those past
// their deadline included).
func Outstanding(l *Limiter) int { return len(l.calls) }
