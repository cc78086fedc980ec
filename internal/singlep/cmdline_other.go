//go:build !linux

package singlep

// commandLine returns nil: without /proc the process stays on every P.
func commandLine() []string { return nil }
