package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// buildVersion is set with -ldflags "-X main.buildVersion=v1.2.3".
var buildVersion = ""

func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// versionCmd is `agent-lsp version`.
func versionCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", stderr)
	describe(fs, "version", stderr)
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	fmt.Fprintln(stdout, "agent-lsp", version())
	return exitOK
}
