// Command nethttp is a BenchmarkStartup anchor: a Go program that links
// net/http, as the minimal client of BenchmarkOneTurn does, and exits.
package main

import _ "net/http"

func main() {}
