package bench

import (
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSuiteSmoke runs every row of the suite once (-benchtime 1x, the
// idle waits cut short), so that a renamed or broken benchmark fails here
// and not in the next scripts/bench, and writes the report from the
// figures. What may be missing: pending rows' benchmarks (not written
// yet), ripgrep and gopls when they are not installed.
func TestSuiteSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every benchmark once")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	results, err := Run(Rows, Options{Root: root, Smoke: true, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	_, rgErr := exec.LookPath("rg")
	gopls := os.Getenv("AGENT_LSP_BENCH_GOPLS") != ""
	for _, r := range results {
		for _, side := range []struct {
			b Bench
			s Sample
		}{{r.Row.Ours, r.Ours}, {r.Row.Anchor, r.Anchor}} {
			switch {
			case side.b.Name == "" || len(side.s.Values) == 1:
			case r.Row.Pending && strings.HasPrefix(side.s.Missing, "not written yet"):
			case rgErr != nil && strings.Contains(side.s.Missing, "rg is not on PATH"):
			case !gopls && strings.Contains(side.b.Name+side.b.Metric, "gopls"):
			default:
				t.Errorf("%s: %s gave %d figures: %s", r.Row.Name, side.b.Name, len(side.s.Values), side.s.Missing)
			}
		}
	}
	md := Markdown(results, ThisMachine(""), 1, "benchmarks.svg")
	for _, r := range Rows {
		if !strings.Contains(md, "| "+r.Name+" |") {
			t.Errorf("the report has no row %q", r.Name)
		}
	}
	d := xml.NewDecoder(strings.NewReader(SVG(results)))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the chart is not well-formed: %v", err)
		}
	}
}
