// Package bench runs agent-lsp's benchmark suite: each row compares one
// of our `go test` benchmarks with an anchor (ripgrep, go-diff, a minimal
// LSP server, gopls, the direct edit), run side by side, and the report
// (docs/benchmarks.md and its chart) is written from the figures.
//
// Adding a comparison is one entry in Rows.
package bench

// Row is one comparison: ours against an anchor, and the goal.
type Row struct {
	Name   string
	Ours   Bench
	Anchor Bench // Name "": an absolute goal, no anchor
	// Goal: Ours/Anchor at most Max (with an anchor), else Ours at most
	// Max; none when Info is set.
	Max  float64
	Info bool
	// Pending rows name benchmarks another change will write; until then
	// the report says so (and the smoke test accepts it).
	Pending bool
	// Serves says what a user feels of it ("first token", "edit in the
	// buffer", "search result", "idle battery"...).
	Serves string
	// Rounds of alternating runs: the row's own count when set (a slow
	// row takes fewer, a noisy one more), else Options.Rounds.
	Rounds int
	// Note explains the figure, under the table.
	Note string
}

// Bench names one `go test` benchmark and the figure taken from it.
type Bench struct {
	Pkg    string // package or pattern, relative to the module root
	Name   string // full name: BenchmarkGrep/regex_no_literal/ours
	Metric string // a unit of its output line; default ns/op
	Times  int    // -benchtime Nx; default 1
	// Env is added to the test binary's environment (for the smoke
	// test, which shortens waits, see Options.Smoke).
	Env map[string]string
	// Label shows in the table instead of Name.
	Label string
}

const (
	tools = "./tools/"
	lsp   = "./lsp/"
	self  = "./bench/"
)

// idle is the one idle run (about 80 s) that the RSS and wakeup rows share.
func idle(metric string) Bench {
	return Bench{Pkg: self, Name: "BenchmarkIdle", Metric: metric, Times: 1}
}

// Rows is the suite.
var Rows = []Row{
	{Name: "initialize vs plain Go stdio server", Serves: "editor start-up",
		Ours:   Bench{Pkg: self, Name: "BenchmarkInitialize/agent-lsp", Times: 20},
		Anchor: Bench{Pkg: self, Name: "BenchmarkInitialize/floor", Times: 20}, Max: 2.5},
	{Name: "initialize vs gopls", Serves: "editor start-up",
		Ours:   Bench{Pkg: self, Name: "BenchmarkInitialize/agent-lsp", Times: 20},
		Anchor: Bench{Pkg: self, Name: "BenchmarkInitialize/gopls", Times: 3}, Max: 1},
	{Name: "RSS after 20 s idle (MiB)", Serves: "memory", Rounds: 1,
		Ours: idle("agent-lsp-RSS-MiB"), Max: 13,
		Note: "The binary is built static (CGO_ENABLED=0), as the README builds it: linked against libc the same server measured 15.8 MiB (ld.so and libc mapped, and more of the binary's pages touched at start). Most of VmRSS is the binary's text, mapped from the file, so it follows the page cache; RssAnon, the process's own memory, is the steadier figure."},
	{Name: "RSS after 20 s idle vs plain Go server", Serves: "memory", Rounds: 1,
		Ours: idle("agent-lsp-RSS-MiB"), Anchor: idle("floor-RSS-MiB"), Info: true},
	{Name: "RSS after 20 s idle vs gopls", Serves: "memory", Rounds: 1,
		Ours: idle("agent-lsp-RSS-MiB"), Anchor: idle("gopls-RSS-MiB"), Max: 1},
	{Name: "anonymous memory after 20 s idle (MiB)", Serves: "memory", Rounds: 1,
		Ours: idle("agent-lsp-RssAnon-MiB"), Anchor: idle("floor-RssAnon-MiB"), Info: true},
	{Name: "wakeups in 60 s idle, processId set, main thread (/proc/PID/status)", Serves: "idle battery", Rounds: 1, Max: 0,
		Ours: idle("agent-lsp-wakeups-main"),
		Note: "voluntary_ctxt_switches on the process's own line of /proc/PID/status, which counts its main thread: the measure the issue names. The next row sums every thread."},
	{Name: "wakeups in 60 s idle, processId set, all threads", Serves: "idle battery", Rounds: 1, Info: true,
		Ours: idle("agent-lsp-wakeups"), Anchor: idle("floor-wakeups"),
		Note: "Summed over /proc/PID/task/*/status. Go's runtime (sysmon, on a thread of its own) wakes even an idle process: it sleeps at most 60 s (forcegcperiod/2 in runtime/proc.go), and the forced GC every 2 minutes wakes a worker, so 0 over all threads is out of reach for any Go program; the plain Go server, which does nothing, is the floor. Before the pidfd watcher, agent-lsp woke ~156 times in 60 s with processId set."},
	{Name: "grep literal vs rg", Serves: "search result",
		Ours:   Bench{Pkg: tools, Name: "BenchmarkGrep/literal/ours", Times: 3},
		Anchor: Bench{Pkg: tools, Name: "BenchmarkGrep/literal/rg", Times: 3}, Max: 1.1},
	{Name: "grep literal, ignore case vs rg -i", Serves: "search result",
		Ours:   Bench{Pkg: tools, Name: "BenchmarkGrep/literal_ignore_case/ours", Times: 3},
		Anchor: Bench{Pkg: tools, Name: "BenchmarkGrep/literal_ignore_case/rg", Times: 3}, Max: 1.1},
	{Name: "grep regex with a literal vs rg", Serves: "search result",
		Ours:   Bench{Pkg: tools, Name: "BenchmarkGrep/regex_literal_part/ours", Times: 3},
		Anchor: Bench{Pkg: tools, Name: "BenchmarkGrep/regex_literal_part/rg", Times: 3}, Max: 1.1},
	{Name: "grep regex, no literal vs rg", Serves: "search result",
		Ours:   Bench{Pkg: tools, Name: "BenchmarkGrep/regex_no_literal/ours", Times: 3},
		Anchor: Bench{Pkg: tools, Name: "BenchmarkGrep/regex_no_literal/rg", Times: 3}, Max: 2},
	{Name: "glob **/*_test.go vs rg --files", Serves: "search result",
		Ours:   Bench{Pkg: tools, Name: "BenchmarkGlob/test_go/ours", Times: 3},
		Anchor: Bench{Pkg: tools, Name: "BenchmarkGlob/test_go/rg", Times: 3}, Max: 1},
	{Name: "str_replace (tool) vs strings.Index + splice, 100k lines, edit at line 12", Serves: "edit in the buffer", Rounds: 9,
		Note:   "Near the top the direct search stops at once, while the tool reads the whole file: old_str must be unique. That search runs on every core, led by old_str's rarest byte (bytes.Index jumps between its first), the staleness fingerprint of the file hashes while the search runs and the new text is built, and the new fingerprint hashes only the blocks the edit touches.",
		Ours:   Bench{Pkg: tools, Name: "BenchmarkStrReplace100k/line_12/tool", Times: 50},
		Anchor: Bench{Pkg: tools, Name: "BenchmarkStrReplace100k/line_12/direct", Times: 50}, Max: 1.5},
	{Name: "str_replace (tool) vs strings.Index + splice, 100k lines, edit at line 87,654", Serves: "edit in the buffer", Rounds: 9,
		Note:   "Near the end the direct search reads most of the file too.",
		Ours:   Bench{Pkg: tools, Name: "BenchmarkStrReplace100k/line_87654/tool", Times: 50},
		Anchor: Bench{Pkg: tools, Name: "BenchmarkStrReplace100k/line_87654/direct", Times: 50}, Max: 1.5},
	{Name: "str_replace through the server (no transport) vs strings.Index + splice, edit at line 12", Serves: "edit in the buffer", Rounds: 9,
		Note:   "The tool reads the open document in place (its string's memory, read-only) and builds the new text once, as the direct splice does; the didChange that reports the edit keeps that text as the document's, instead of building it again, without comparing it when it sends back the very replacements on the very text the tool read (New is Old with them applied). The staleness check finds the tool's own last text in the document without hashing it. What is left over the direct splice is the uniqueness search over the whole file (the direct search stops at the match) and the line index's update.",
		Ours:   Bench{Pkg: lsp, Name: "BenchmarkStrReplaceLSP/line_12", Times: 50},
		Anchor: Bench{Pkg: tools, Name: "BenchmarkStrReplace100k/line_12/direct", Times: 50}, Max: 1.5},
	{Name: "str_replace through the server (no transport) vs strings.Index + splice, edit at line 87,654", Serves: "edit in the buffer", Rounds: 9,
		Ours:   Bench{Pkg: lsp, Name: "BenchmarkStrReplaceLSP/line_87654", Times: 50},
		Anchor: Bench{Pkg: tools, Name: "BenchmarkStrReplace100k/line_87654/direct", Times: 50}, Max: 1.5},
	{Name: "didChange of a 100-edit WorkspaceEdit vs one splice of the file, 100k lines", Serves: "edit in the buffer",
		Note:   "The editor reports a multi-edit as one didChange, last edit first; the server reads all its ranges in the text before it and builds the new text and line index in one pass (before: one copy of the file per edit, about 50 ms and 580 MB here). The direct splice has the offsets already and builds no line index.",
		Ours:   Bench{Pkg: lsp, Name: "BenchmarkDidChange100Edits/server", Times: 50},
		Anchor: Bench{Pkg: lsp, Name: "BenchmarkDidChange100Edits/direct", Times: 50}, Max: 2},
	{Name: "write_file 100 changes → WorkspaceEdit vs go-diff line mode", Serves: "edit in the buffer",
		Ours:   Bench{Pkg: lsp, Name: "BenchmarkWriteFileEdit/ours", Times: 5},
		Anchor: Bench{Pkg: lsp, Name: "BenchmarkWriteFileEdit/godiff_lines", Times: 5}, Max: 0.5},
	{Name: "write_file allocations (× file size)", Serves: "memory",
		Ours: Bench{Pkg: lsp, Name: "BenchmarkWriteFileEdit/ours", Metric: "alloc/size", Times: 5}, Max: 3},
	{Name: "write_file 100 changes → WorkspaceEdit vs go-diff line mode, Go's net/http sources", Serves: "edit in the buffer",
		Note:   "Real code: Go's net/http sources end to end (about 60,000 lines of 29 bytes on average), with the same 100 scattered changes.",
		Ours:   Bench{Pkg: lsp, Name: "BenchmarkWriteFileEdit/go_source/ours", Times: 5},
		Anchor: Bench{Pkg: lsp, Name: "BenchmarkWriteFileEdit/go_source/godiff_lines", Times: 5}, Max: 0.5},
	{Name: "write_file allocations (× file size), Go's net/http sources", Serves: "memory",
		Note: "The line index costs 8 bytes a line on each side (its start and a 32-bit hash), and the unique-line table about 16 more at most: a file of short lines allocates more per byte than one of long lines.",
		Ours: Bench{Pkg: lsp, Name: "BenchmarkWriteFileEdit/go_source/ours", Metric: "alloc/size", Times: 5}, Max: 3},
	// Written by the owners of their issue items; until then the table
	// says the benchmark does not exist yet.
	{Name: "per-turn cost on the real HTTP path, turn 10 (ms)", Serves: "first token", Max: 0.5,
		Ours: Bench{Pkg: "./provider/openai/", Name: "BenchmarkRealPathTurn/turn_10", Metric: "ms/turn", Times: 500}},
	{Name: "per-turn cost on the real HTTP path, turn 200 (ms)", Serves: "first token", Max: 0.5,
		Ours: Bench{Pkg: "./provider/openai/", Name: "BenchmarkRealPathTurn/turn_200", Metric: "ms/turn", Times: 500}},
	{Name: "turn 200: the adapter's request vs go-openai's whole-request marshal alone", Serves: "first token", Info: true,
		Ours:   Bench{Pkg: "./provider/openai/", Name: "BenchmarkRealPathTurn/turn_200", Times: 500},
		Anchor: Bench{Pkg: "./provider/openai/", Name: "BenchmarkRealPathTurn/turn_200_go-openai_marshal", Times: 500},
		Note:   "the anchor only marshals the request with go-openai, as the adapter did before it encoded each message once; ours includes the HTTP round trip"},
	{Name: "process start and exit: agent-lsp --version vs a program linking only net/http", Serves: "first token", Info: true,
		Ours:   Bench{Pkg: self, Name: "BenchmarkStartup/agent-lsp_version", Times: 30},
		Anchor: Bench{Pkg: self, Name: "BenchmarkStartup/nethttp", Times: 30},
		Note:   "Programs that only link some packages and exit (bench/startup): what a binary links costs before any of its code runs. The next row's anchor links the MCP SDK alone."},
	{Name: "process start and exit: a program linking only the MCP SDK vs only net/http", Serves: "first token", Info: true,
		Ours:   Bench{Pkg: self, Name: "BenchmarkStartup/mcpsdk", Times: 30},
		Anchor: Bench{Pkg: self, Name: "BenchmarkStartup/nethttp", Times: 30}},
	{Name: "process start and exit: agent-lsp --version vs a program linking only agent-lsp's third-party packages", Serves: "first token", Info: true,
		Ours:   Bench{Pkg: self, Name: "BenchmarkStartup/agent-lsp_version", Times: 30},
		Anchor: Bench{Pkg: self, Name: "BenchmarkStartup/deps", Times: 30},
		Note:   "The anchor links go.lsp.dev, the MCP SDK, go-git's gitignore, jsonschema-go, mvdan.cc/sh, toml, go-openai, go-diff, doublestar, go-landlock and x/sys, and none of agent-lsp's packages: the part of the start that is agent-lsp's own."},
	{Name: "one-turn agent-lsp run vs minimal Go client", Serves: "first token", Max: 1.5, Rounds: 9,
		Ours:   Bench{Pkg: "./cmd/agent-lsp/", Name: "BenchmarkOneTurn/paired", Metric: "agent-lsp-ms", Times: 40},
		Anchor: Bench{Pkg: "./cmd/agent-lsp/", Name: "BenchmarkOneTurn/paired", Metric: "client-ms", Times: 40},
		Note:   "Each round runs agent-lsp, the minimal client (internal/minclient) and the same client linked with agent-lsp's dependencies in turn, 40 times, which goes first rotating, and takes each side's median (BenchmarkOneTurn/paired); each round is a process of its own that builds all three again (static, CGO_ENABLED=0), as the linker leaves them: a freshly linked file sits in the page cache in 4 KiB pages wherever memory was free, which moved the start-up of identical builds by up to 10% here, so a median of rounds stands for several builds (copied with cp, all three start faster). The runs' home (state directory, transcripts) is a new directory beside the user's cache, as a user's state is in their home. Where the time goes, from timestamps inside the three programs at 65a35c6 (300 runs each, medians, copies of one build, the minimal client at 2.37 ms): from exec to the first of our packages' initialisation the client takes 1.06 ms, the client with our dependencies 1.16, agent-lsp 1.28 (a bigger binary, and the switch to one P); the rest of the packages' initialisation 0.27, 0.67 (the MCP SDK's packages the most: encoding/gob, jsonschema-go, x/sys/cpu through segmentio) and 0.67 ms; from main to the request 0.03, 0.03 and 0.37 ms (agent-lsp's configuration, harness, session, request body and dial); the round trip 0.65, 0.62 and 0.39 ms (agent-lsp's connection is open by then); reading the answer to the exit 0.02, 0.02 and 0.09 ms; the exit 0.30, 0.33 and 0.34 ms. A run starts on one P (internal/singlep, in its package initialisation) and gets every CPU back at its first tool: on two, the runtime woke a second thread for each goroutine beside the main one (the dial, the transcript's file, net/http's loops), and the cross-CPU wake-ups, with the TLB shootdowns the page faults of a starting process then need, made the run 5 to 10% slower here; switching later, from main, gained half as much, as the P dropped then hands back the spans it served the start with, a page of heap metadata each. Inside the process the run dials the model's server while it builds the harness (the dialling goroutine runs first, to send its SYN; the request takes that connection; no timer watches it), writes its request body, its transcript records and reads the endpoint cache and the reply's chunks by hand (no encoding/json, whose first use of a type builds its coder by reflection; FuzzReadChunk holds the chunk reader to encoding/json), keeps the encoded tool list for the next request, sends the request with its headers in one write, takes its tool schemas from code generated ahead (a type parameter, not an assertion that builds a method table at run time), makes the sandbox's environment and hidden paths, resolves the workspace for path checks and merges a tool's permission table at the first tool call, looks for AGENTS.md and .agents with one lstat each, creates the transcript's file (and its directory, the first time) in the background without the poller's registration once its request is written (provider.Request.Sent: on one P, creating it earlier held the P for the file system's 0.03–0.1 ms just before the request), leaves the transcript's writeback to the kernel when the process ends within a second of the turn, opens no change journal for a session it created, prunes old spill files only when it first spills, takes the change baseline only once the model asks for a tool, and takes over SIGINT and SIGTERM only at its first tool or after 100 ms. Setting up the harness on two goroutines, creating the transcript's file before the request, pre-growing the main goroutine's stack, madvise(MADV_RANDOM) on the text or MADV_HUGEPAGE on the heap, turning off the runtime's cgroup limit lookup, and prefaulting the binary's pages measured slower or no faster, and are not done."},
	{Name: "one-turn: the minimal client linked with agent-lsp's dependencies vs the minimal client", Serves: "first token", Info: true, Rounds: 9,
		Ours:   Bench{Pkg: "./cmd/agent-lsp/", Name: "BenchmarkOneTurn/paired", Metric: "deps-client-ms", Times: 40, Label: "minimal client + dependencies"},
		Anchor: Bench{Pkg: "./cmd/agent-lsp/", Name: "BenchmarkOneTurn/paired", Metric: "client-ms", Times: 40},
		Note:   "The floor of any program built on agent-lsp's dependencies: the same request, the same code (internal/minclient), linked with every third-party package agent-lsp imports (bench/startup/deps), of which the MCP SDK costs the most (see the startup rows)."},
	{Name: "one-turn: agent-lsp run vs the minimal client linked with agent-lsp's dependencies", Serves: "first token", Info: true, Rounds: 9,
		Ours:   Bench{Pkg: "./cmd/agent-lsp/", Name: "BenchmarkOneTurn/paired", Metric: "agent-lsp-ms", Times: 40},
		Anchor: Bench{Pkg: "./cmd/agent-lsp/", Name: "BenchmarkOneTurn/paired", Metric: "deps-client-ms", Times: 40, Label: "minimal client + dependencies"},
		Note:   "What of the one-turn run is agent-lsp's own, on top of its dependencies."},
}
