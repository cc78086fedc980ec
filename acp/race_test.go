//go:build race

package acp_test

// Under -race the agent binary the tests drive is built with the race
// detector too, so the protocol code is checked where it runs.
func init() { buildFlags = append(buildFlags, "-race") }
