// Command empty is the start-up floor of BenchmarkStartup: a Go program
// that does nothing.
package main

func main() {}
