//go:build !linux

package main

import "os"

// isTerminal is false where it is not implemented: runs are headless and
// "ask" follows --ask (default deny).
func isTerminal(*os.File) bool { return false }

// termWidth is unknown where it is not implemented.
func termWidth(*os.File) int { return 0 }
