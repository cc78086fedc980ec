package permission

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// bypassCase is a row of testdata/bypass_cases.tsv: the verdict under the
// user rule set of issue 10 (issueRules) and, from a [builtin:V] tag, under
// the built-in rules when it differs.
type bypassCase struct {
	id, cmd       string
	user, builtin Verdict
}

func loadBypassCases(t *testing.T) []bypassCase {
	t.Helper()
	f, err := os.Open("testdata/bypass_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []bypassCase
	for line := 1; sc.Scan(); line++ {
		if line == 1 {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 4 {
			t.Fatalf("line %d: %d columns", line, len(cols))
		}
		cmd, err := strconv.Unquote(cols[0])
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		c := bypassCase{cmd: cmd}
		if c.user, err = ParseVerdict(cols[1]); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		c.builtin = c.user
		if _, tag, ok := strings.Cut(cols[2], "[builtin:"); ok {
			if c.builtin, err = ParseVerdict(strings.TrimSuffix(tag, "]")); err != nil {
				t.Fatalf("line %d: %v", line, err)
			}
		}
		c.id, _, _ = strings.Cut(cols[2], " ")
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBypassCorpus runs the issue 10 corpus under the built-in rules and
// under the user rule set, in a workspace with the fixture of readsWorkspace
// (symlinked directories leading out, .env, .git/config). A security
// failure is an allow where ask or deny is right, or an ask where deny is
// right; stricter than needed must stay under 5%.
func TestBypassCorpus(t *testing.T) {
	t.Parallel()
	cases := loadBypassCases(t)
	if len(cases) < 150 {
		t.Errorf("corpus has %d rows, want at least 150", len(cases))
	}
	for _, set := range []struct {
		name string
		sets []RuleSet
	}{{"built-in", nil}, {"user", []RuleSet{issueRules()}}} {
		e, err := New(readsWorkspace(t), set.sets...)
		if err != nil {
			t.Fatal(err)
		}
		var security, stricter []string
		for _, c := range cases {
			want := c.user
			if set.name == "built-in" {
				want = c.builtin
			}
			d := e.CheckCommand(c.cmd)
			switch {
			case d.Verdict < Allow || d.Verdict < want:
				security = append(security, c.id)
				t.Errorf("SECURITY %s (%s rules) %q: got %s, want %s\n%s", c.id, set.name, c.cmd, d.Verdict, want, d.Explain())
			case d.Verdict > want:
				stricter = append(stricter, c.id)
				t.Logf("stricter %s (%s rules) %q: got %s, want %s\n%s", c.id, set.name, c.cmd, d.Verdict, want, d.Explain())
			}
		}
		t.Logf("%s rules: %d rows, %d security failures %v, %d stricter than needed (%.1f%%) %v",
			set.name, len(cases), len(security), security, len(stricter), 100*float64(len(stricter))/float64(len(cases)), stricter)
		if 20*len(stricter) > len(cases) {
			t.Errorf("%s rules: %d stricter than needed, over 5%% of %d", set.name, len(stricter), len(cases))
		}
	}
}
