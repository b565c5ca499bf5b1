// Package benchmarks runs the same rate-limiting scenarios through floodgate
// and its peers, each behind the thinnest wrapper its API allows. It is a
// separate module so that the peers never enter floodgate's own go.mod.
//
// Everything lives in the _test.go files; run ./run.sh (see RESULTS.md).
package benchmarks
