package main

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs up to 8 tests at once unless -parallel is given (go
// test's default is GOMAXPROCS): they wait rather than compute, most for
// the server's go-redis client dialling a dead Redis (5 dials, 100 ms
// apart, at its start-up check), and 2 at once made the package wait
// those out one after another (1.6 s; 0.7 s at 8).
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", "8"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
