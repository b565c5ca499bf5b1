// Package logcount is a log/slog handler for tests that counts the lines
// logged, to check that a component says a thing once, not per request.
// It is internal to floodgate.
package logcount

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// Handler records each line's level and message.
type Handler struct {
	mu    sync.Mutex
	lines []string
}

// Logger returns a logger writing to a new Handler, and the handler.
func Logger() (*slog.Logger, *Handler) {
	h := &Handler{}
	return slog.New(h), h
}

// Enabled reports true: every level is recorded.
func (*Handler) Enabled(context.Context, slog.Level) bool { return true }

// Handle records r.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.lines = append(h.lines, r.Level.String()+" "+r.Message)
	h.mu.Unlock()
	return nil
}

// WithAttrs returns h: attributes are not recorded.
func (h *Handler) WithAttrs([]slog.Attr) slog.Handler { return h }

// WithGroup returns h.
func (h *Handler) WithGroup(string) slog.Handler { return h }

// Count returns how many lines (level and message) contain sub.
func (h *Handler) Count(sub string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, s := range h.lines {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}
