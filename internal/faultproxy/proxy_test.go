package faultproxy_test

import (
	"bufio"
	"net"
	"os"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/require"
)

// echo starts a loopback echo server.
func echo(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 1024)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// bounded gives c's reads and writes a deadline of [within.Bound] from
// now: a proxy that never delivers fails the test instead of hanging it.
func bounded(t *testing.T, c net.Conn) {
	t.Helper()
	require.NoError(t, c.SetDeadline(time.Now().Add(within.Bound)))
}

func roundTrip(t *testing.T, c net.Conn, r *bufio.Reader) time.Duration {
	start := time.Now()
	_, err := c.Write([]byte("ping\n"))
	require.NoError(t, err)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ping\n", line)
	return time.Since(start)
}

// TestProxy: latency adds to each direction, a stall holds bytes until
// Resume, Drop closes connections, Refuse refuses new ones; only loopback
// targets are accepted.
func TestProxy(t *testing.T) {
	_, err := faultproxy.New("192.0.2.1:6379")
	require.Error(t, err)
	p := faultproxy.Start(t, echo(t))
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	bounded(t, c)
	r := bufio.NewReader(c)
	roundTrip(t, c, r)
	require.EqualValues(t, 1, p.Accepted())

	p.SetLatency(10 * time.Millisecond)
	require.GreaterOrEqual(t, roundTrip(t, c, r), 20*time.Millisecond)
	p.SetLatency(0)

	p.Stall()
	_, err = c.Write([]byte("held\n"))
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	_, err = r.ReadString('\n')
	require.Error(t, err, "nothing is delivered during a stall")
	bounded(t, c)
	p.Resume()
	// The deadline error may have consumed nothing: the held line arrives.
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "held\n", line)

	p.Drop()
	_, err = r.ReadString('\n')
	require.Error(t, err, "a dropped connection is closed")
	require.NotErrorIs(t, err, os.ErrDeadlineExceeded, "a dropped connection is closed, not left open")

	p.Refuse(true)
	c2, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c2.Close()
	bounded(t, c2)
	_, err = bufio.NewReader(c2).ReadString('\n')
	require.Error(t, err, "a refused connection is closed")
	require.NotErrorIs(t, err, os.ErrDeadlineExceeded, "a refused connection is closed, not left open")
	require.EqualValues(t, 1, p.Accepted())
}

// TestLoseNextReply: the server receives the request, its reply is lost
// and the connection closed; the next connection works as before, and
// Lost counts once.
func TestLoseNextReply(t *testing.T) {
	t.Parallel()
	p := faultproxy.Start(t, echo(t))
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	bounded(t, c)
	r := bufio.NewReader(c)
	roundTrip(t, c, r)
	p.LoseNextReply()
	_, err = c.Write([]byte("lost\n"))
	require.NoError(t, err)
	_, err = r.ReadString('\n')
	require.Error(t, err, "the reply is lost and the connection closed")
	require.EqualValues(t, 1, p.Lost())

	c2, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c2.Close()
	bounded(t, c2)
	roundTrip(t, c2, bufio.NewReader(c2))
	require.EqualValues(t, 1, p.Lost())
}

// TestCutRepliesAfter: the first bytes of the replies come back, then the
// connection is closed where they would exceed the budget.
func TestCutRepliesAfter(t *testing.T) {
	t.Parallel()
	p := faultproxy.Start(t, echo(t))
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	bounded(t, c)
	r := bufio.NewReader(c)
	p.CutRepliesAfter(5)
	_, err = c.Write([]byte("abc\n"))
	require.NoError(t, err)
	got, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "abc\n", got, "within the budget")
	_, err = c.Write([]byte("defgh\n"))
	require.NoError(t, err)
	got, err = r.ReadString('\n')
	require.Error(t, err, "cut past the budget")
	require.Equal(t, "d", got, "the budget's last byte came back")
	require.EqualValues(t, 1, p.Lost())
}
