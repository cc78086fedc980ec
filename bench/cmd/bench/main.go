// Command bench runs agent-lsp's benchmark suite (bench.Rows) against its
// anchors and writes docs/benchmarks.md and docs/benchmarks.svg. Run it
// through scripts/bench, from the module root.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/agent-lsp/agent-lsp/bench"
)

func main() {
	rounds := flag.Int("rounds", 5, "alternating runs of each row that sets no count of its own")
	md := flag.String("md", "docs/benchmarks.md", "report to write")
	svg := flag.String("svg", "docs/benchmarks.svg", "chart to write (linked from the report)")
	only := flag.String("rows", "", "run only the rows whose name matches this regular expression")
	noGopls := flag.Bool("no-gopls", false, "do not install or compare with gopls")
	flag.Parse()
	if err := run(*rounds, *md, *svg, *only, !*noGopls); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(rounds int, md, svg, only string, withGopls bool) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return fmt.Errorf("run from the module root (scripts/bench does)")
	}
	rows := bench.Rows
	if only != "" {
		re, err := regexp.Compile(only)
		if err != nil {
			return err
		}
		rows = nil
		for _, r := range bench.Rows {
			if re.MatchString(r.Name) {
				rows = append(rows, r)
			}
		}
	}
	var env []string
	gopls := ""
	if withGopls {
		cache, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		if gopls, err = bench.EnsureGopls(filepath.Join(cache, "agent-lsp-bench"), os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "bench: without gopls:", err)
		} else {
			env = append(env, "AGENT_LSP_BENCH_GOPLS="+gopls)
		}
	}
	start := time.Now()
	results, err := bench.Run(rows, bench.Options{Root: root, Rounds: rounds, Env: env, Log: os.Stderr})
	if err != nil {
		return err
	}
	m := bench.ThisMachine(gopls)
	rel, err := filepath.Rel(filepath.Dir(md), svg)
	if err != nil {
		rel = svg
	}
	if err := os.WriteFile(svg, []byte(bench.SVG(results)), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(md, []byte(bench.Markdown(results, m, rounds, rel)), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: wrote %s and %s in %s\n", md, svg, time.Since(start).Round(time.Second))
	return nil
}
