package bench

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Machine describes where the suite ran.
type Machine struct {
	CPU, Kernel, Memory, Go string
	Cores                   int
	Anchors                 []string // "ripgrep 13.0.0", "gopls v0.23.0"...
	Date                    time.Time
}

// ThisMachine reads the CPU, memory and kernel from /proc and asks the
// anchors for their versions (gopls: the binary given, if any).
func ThisMachine(gopls string) Machine {
	m := Machine{Cores: runtime.NumCPU(), Date: time.Now().UTC(), CPU: "unknown", Kernel: runtime.GOOS, Memory: "unknown"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				m.CPU = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	if kb := statusOf("/proc/meminfo", "MemTotal"); kb > 0 {
		m.Memory = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
	}
	m.Go = firstLine("go", "version")
	if v := firstLine("rg", "--version"); v != "" {
		m.Anchors = append(m.Anchors, v)
	}
	if gopls != "" {
		if v := firstLine(gopls, "version"); v != "" {
			m.Anchors = append(m.Anchors, v)
		}
	}
	m.Anchors = append(m.Anchors, "go-diff "+goDiffVersion)
	return m
}

// statusOf reads a number from a /proc status-like file ("VmRSS: 123
// kB" gives 123).
func statusOf(path, field string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// goDiffVersion is the go-diff the module pins (go.mod).
const goDiffVersion = "v1.4.0"

func firstLine(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return ""
	}
	l, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(l)
}

// Stats of one sample.
func stats(v []float64) (med, lo, hi float64) {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}

// Ratio is the median of the round-by-round ratios ours/anchor, with
// their range; ok is false without both sides.
func (r Result) Ratio() (med, lo, hi float64, ok bool) {
	n := min(len(r.Ours.Values), len(r.Anchor.Values))
	if n == 0 {
		return 0, 0, 0, false
	}
	ratios := make([]float64, 0, n)
	for i := range n {
		switch o, a := r.Ours.Values[i], r.Anchor.Values[i]; {
		case a != 0:
			ratios = append(ratios, o/a)
		case o == 0: // both none (wakeups): as good as the anchor
			ratios = append(ratios, 1)
		default:
			ratios = append(ratios, math.Inf(1))
		}
	}
	if len(ratios) == 0 {
		return 0, 0, 0, false
	}
	med, lo, hi = stats(ratios)
	return med, lo, hi, true
}

// Met says whether the goal is reached: "yes", "no", or "" (no goal, or
// no figure).
func (r Result) Met() string {
	if r.Row.Info || len(r.Ours.Values) == 0 {
		return ""
	}
	v, _, _ := stats(r.Ours.Values)
	if r.Row.Anchor.Name != "" {
		var ok bool
		if v, _, _, ok = r.Ratio(); !ok {
			return ""
		}
	}
	if v <= r.Row.Max {
		return "yes"
	}
	return "no"
}

func (r Result) goal() string {
	switch {
	case r.Row.Info:
		return "—"
	case r.Row.Anchor.Name != "":
		return fmt.Sprintf("≤ %g×", r.Row.Max)
	}
	return fmt.Sprintf("≤ %g", r.Row.Max)
}

// Markdown writes the report: how it was made, the machine, the table.
func Markdown(results []Result, m Machine, rounds int, chart string) string {
	var b strings.Builder
	b.WriteString("# Benchmarks\n\n")
	b.WriteString("Written by `scripts/bench` (do not edit by hand; run it again). Each row runs one of our `go test` benchmarks and its anchor side by side, alternating which goes first, ")
	fmt.Fprintf(&b, "%d rounds unless the row says otherwise (the 80 s idle run: one). Figures are medians [min–max] over the rounds; the ratio is the median of the round-by-round ratios [their range]. ", rounds)
	b.WriteString("Add a comparison with one entry in `bench/rows.go`.\n\n")
	fmt.Fprintf(&b, "- Date: %s\n- Machine: %s, %d cores, %s memory, %s\n- Toolchain: %s\n- Anchors: %s\n\n",
		m.Date.Format("2006-01-02 15:04 MST"), m.CPU, m.Cores, m.Memory, m.Kernel, m.Go, strings.Join(m.Anchors, "; "))
	if chart != "" {
		fmt.Fprintf(&b, "![ratios against the anchors](%s)\n\n", chart)
	}
	b.WriteString("| comparison | ours | anchor | ratio | goal | met | serves |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range results {
		ratio := "—"
		if med, lo, hi, ok := r.Ratio(); ok {
			ratio = fmt.Sprintf("%s [%s–%s]", num(med), num(lo), num(hi))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.Row.Name, cell(r.Ours, r.Row.Ours), cell(r.Anchor, r.Row.Anchor), ratio, r.goal(), r.Met(), r.Row.Serves)
	}
	notes := false
	for _, r := range results {
		if r.Row.Note != "" {
			if !notes {
				b.WriteString("\nNotes:\n\n")
				notes = true
			}
			fmt.Fprintf(&b, "- %s: %s\n", r.Row.Name, r.Row.Note)
		}
	}
	b.WriteString("\nOurs and the anchor, per row:\n\n")
	for _, r := range results {
		fmt.Fprintf(&b, "- %s: `%s` in `%s`", r.Row.Name, r.Row.Ours.Name, r.Row.Ours.Pkg)
		if r.Row.Anchor.Name != "" {
			fmt.Fprintf(&b, " against `%s` in `%s`", r.Row.Anchor.Name, r.Row.Anchor.Pkg)
		}
		b.WriteString(".\n")
	}
	return b.String()
}

func cell(s Sample, b Bench) string {
	if b.Name == "" {
		return "—"
	}
	if len(s.Values) == 0 {
		return "n/a (" + strings.ReplaceAll(s.Missing, "|", "/") + ")"
	}
	if s.Missing != "" { // some rounds gave no figure
		s.Missing = ""
		return cell(s, b) + " (some rounds failed; see the log)"
	}
	med, lo, hi := stats(s.Values)
	u := metric(b)
	switch {
	case len(s.Values) == 1:
		return value(med, u)
	case u == "ns/op":
		return fmt.Sprintf("%s [%s–%s]", value(med, u), value(lo, u), value(hi, u))
	}
	return fmt.Sprintf("%s [%s–%s] %s", num(med), num(lo), num(hi), unitName(u))
}

// unitName is a metric as the table shows it: the idle run's metrics
// carry the server's name (agent-lsp-RSS-MiB is shown as MiB).
func unitName(u string) string {
	for _, p := range []string{"agent-lsp-", "floor-", "gopls-", "deps-client-", "client-"} {
		if rest, ok := strings.CutPrefix(u, p); ok {
			return strings.TrimPrefix(strings.TrimPrefix(rest, "RSS-"), "RssAnon-")
		}
	}
	return u
}

// value shows a figure in its unit; ns/op as a duration.
func value(v float64, unit string) string {
	if unit != "ns/op" {
		return num(v) + " " + unitName(unit)
	}
	switch {
	case v >= 1e9:
		return num(v/1e9) + " s"
	case v >= 1e6:
		return num(v/1e6) + " ms"
	case v >= 1e3:
		return num(v/1e3) + " µs"
	}
	return num(v) + " ns"
}

// num prints three significant digits.
func num(v float64) string {
	if v == 0 {
		return "0"
	}
	d := max(0, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	return fmt.Sprintf("%.*f", d, v)
}
