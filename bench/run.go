package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Options says how to run the suite.
type Options struct {
	Root   string   // module root
	Rounds int      // alternating runs of a row that sets none (default 5)
	Env    []string // added to every benchmark's environment
	Log    io.Writer
	// Smoke runs every benchmark once (-benchtime 1x, one round) with the
	// idle waits cut to a few milliseconds: it checks that the suite runs,
	// not how fast.
	Smoke bool
}

// Sample is what one side of a row measured, round by round.
type Sample struct {
	Values  []float64
	Missing string // why there is no figure: benchmark not written, skipped...
}

// Result is a row with its figures.
type Result struct {
	Row          Row
	Ours, Anchor Sample
}

// runner builds each package's test binary once and caches each round's
// runs, so rows sharing a benchmark (the idle run) share its figures.
type runner struct {
	o    Options
	tmp  string
	bins map[string]binary     // package pattern + benchmark → binary
	runs map[string]runOutcome // round + binary + regexp + times
}

type binary struct {
	path, dir, importPath string
	missing               string
}

type runOutcome struct {
	out     string
	missing string
}

// Run runs rows and returns their results in order.
func Run(rows []Row, o Options) ([]Result, error) {
	if o.Rounds <= 0 {
		o.Rounds = 5
	}
	if o.Smoke {
		o.Rounds = 1
		o.Env = append(o.Env, "AGENT_LSP_BENCH_RSS_AFTER=10ms", "AGENT_LSP_BENCH_IDLE_FOR=10ms")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	tmp, err := os.MkdirTemp("", "agent-lsp-suite")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	r := &runner{o: o, tmp: tmp, bins: map[string]binary{}, runs: map[string]runOutcome{}}
	out := make([]Result, len(rows))
	for i, row := range rows {
		out[i].Row = row
		rounds := o.Rounds
		if row.Rounds > 0 && !o.Smoke {
			rounds = row.Rounds
		}
		fmt.Fprintf(o.Log, "%s (%d rounds)\n", row.Name, rounds)
		for k := range rounds {
			sides := []*Sample{&out[i].Ours, &out[i].Anchor}
			benches := []Bench{row.Ours, row.Anchor}
			if k%2 == 1 { // alternate which side runs first
				slices.Reverse(sides)
				slices.Reverse(benches)
			}
			for j, b := range benches {
				if b.Name == "" || sides[j].Missing != "" {
					continue
				}
				v, missing, err := r.measure(k, b)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", row.Name, err)
				}
				if missing != "" {
					fmt.Fprintf(o.Log, "  %s, round %d: %s\n", b.Name, k+1, missing)
					sides[j].Missing = missing
					continue
				}
				sides[j].Values = append(sides[j].Values, v)
			}
		}
	}
	return out, nil
}

// measure returns b's figure in round k.
func (r *runner) measure(k int, b Bench) (float64, string, error) {
	bin, err := r.binary(b)
	if err != nil || bin.missing != "" {
		return 0, bin.missing, err
	}
	times := max(b.Times, 1)
	if r.o.Smoke {
		times = 1
	}
	re := benchRegexp(b.Name)
	key := fmt.Sprintf("%d\x00%s\x00%s\x00%d\x00%v", k, bin.path, re, times, b.Env)
	run, ok := r.runs[key]
	if !ok {
		run = r.run(bin, re, times, b.Env)
		r.runs[key] = run
	}
	if run.missing != "" {
		return 0, run.missing, nil
	}
	v, missing := parseFigure(run.out, b.Name, metric(b))
	return v, missing, nil
}

func metric(b Bench) string {
	if b.Metric == "" {
		return "ns/op"
	}
	return b.Metric
}

// benchRegexp matches exactly the benchmark named full, level by level.
func benchRegexp(full string) string {
	parts := strings.Split(full, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

func (r *runner) run(bin binary, re string, times int, env map[string]string) runOutcome {
	cmd := exec.Command(bin.path, "-test.run", "^$", "-test.bench", re, "-test.benchtime", fmt.Sprintf("%dx", times),
		"-test.count", "1", "-test.benchmem", "-test.timeout", "20m")
	cmd.Dir = bin.dir
	cmd.Env = append(os.Environ(), r.o.Env...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return runOutcome{missing: fmt.Sprintf("failed (%v): %s", err, lastLines(out.String(), 5))}
	}
	return runOutcome{out: out.String()}
}

// binary builds (once) the test binary of the package under b.Pkg that
// defines b's top-level benchmark.
func (r *runner) binary(b Bench) (binary, error) {
	top, _, _ := strings.Cut(b.Name, "/")
	key := b.Pkg + "\x00" + top
	if bin, ok := r.bins[key]; ok {
		return bin, nil
	}
	bin, err := r.build(b.Pkg, top)
	if err == nil {
		r.bins[key] = bin
	}
	return bin, err
}

func (r *runner) build(pattern, top string) (binary, error) {
	list := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .TestGoFiles \" \"}} {{join .XTestGoFiles \" \"}}", pattern)
	list.Dir = r.o.Root
	out, err := list.Output()
	if err != nil {
		return binary{}, fmt.Errorf("go list %s: %w", pattern, err)
	}
	decl := regexp.MustCompile(`(?m)^func\s+` + regexp.QuoteMeta(top) + `\s*\(`)
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		f := strings.SplitN(strings.TrimSpace(line), "\t", 3)
		if len(f) < 3 || !hasDecl(f[1], strings.Fields(f[2]), decl) {
			continue
		}
		for _, b := range r.bins { // built already for another benchmark
			if b.importPath == f[0] {
				return b, nil
			}
		}
		path := filepath.Join(r.tmp, strconv.Itoa(len(r.bins))+".test")
		fmt.Fprintf(r.o.Log, "  go test -c %s\n", f[0])
		build := exec.Command("go", "test", "-c", "-o", path, f[0])
		build.Dir = r.o.Root
		if out, err := build.CombinedOutput(); err != nil {
			return binary{}, fmt.Errorf("go test -c %s: %v\n%s", f[0], err, out)
		}
		return binary{path: path, dir: f[1], importPath: f[0]}, nil
	}
	return binary{missing: fmt.Sprintf("not written yet: no %s in %s", top, pattern)}, nil
}

func hasDecl(dir string, files []string, decl *regexp.Regexp) bool {
	for _, f := range files {
		if src, err := os.ReadFile(filepath.Join(dir, f)); err == nil && decl.Match(src) {
			return true
		}
	}
	return false
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// parseFigure finds the output line of benchmark name and the value of
// unit on it, or says why there is none (a skip, with its reason).
func parseFigure(out, name, unit string) (float64, string) {
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "--- SKIP: "+name+" ") || t == "--- SKIP: "+name {
			reason := "skipped"
			if i+1 < len(lines) {
				// "    file_test.go:12: rg is not on PATH"
				msg := strings.TrimSpace(lines[i+1])
				if _, after, ok := strings.Cut(msg, ": "); ok && strings.Contains(msg[:len(msg)-len(after)], ".go:") {
					msg = after
				}
				reason = "skipped: " + msg
			}
			return 0, reason
		}
		f := strings.Fields(line)
		if len(f) < 3 || procSuffix.ReplaceAllString(f[0], "") != name {
			continue
		}
		for j := 2; j+1 < len(f); j += 2 {
			if f[j+1] == unit {
				v, err := strconv.ParseFloat(f[j], 64)
				if err == nil {
					return v, ""
				}
			}
		}
		return 0, fmt.Sprintf("no %s in its output", unit)
	}
	return 0, "not in the output: " + lastLines(out, 3)
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], " | ")
}
