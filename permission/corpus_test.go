package permission

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

type bashCase struct {
	id, cmd, why string
	want         Verdict
	minAsk       bool
}

func loadBashCases(t *testing.T) []bashCase {
	t.Helper()
	f, err := os.Open("testdata/bash_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []bashCase
	for line := 0; sc.Scan(); line++ {
		if line == 0 {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 3 {
			t.Fatalf("line %d: %d columns", line+1, len(cols))
		}
		cmd, err := strconv.Unquote(cols[0])
		if err != nil {
			t.Fatalf("line %d: %v", line+1, err)
		}
		want, err := ParseVerdict(cols[1])
		if err != nil {
			t.Fatalf("line %d: %v", line+1, err)
		}
		id, _, _ := strings.Cut(cols[2], " ")
		out = append(out, bashCase{id: id, cmd: cmd, why: cols[2], want: want, minAsk: strings.Contains(cols[2], "[min:ask]")})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// corpusRules is exactly the rule set bash_cases.tsv assumes.
func corpusRules() RuleSet {
	off := false
	return RuleSet{Source: "corpus", Origin: FromUser, Tools: Permissions{"bash": {
		Builtin: &off,
		Default: Ask,
		Allow:   []string{"ls*", "cat *", "grep *", "git status*", "git diff*", "go test*"},
		Deny:    []string{"rm *", "sudo *", "curl *", "wget *", "git push*"},
	}}}
}

// securityFailure is an allow where ask or deny is expected, or an ask where
// deny is expected on a row without [min:ask].
func securityFailure(c bashCase, got Verdict) bool {
	if got < Allow {
		return true
	}
	if got == Allow && c.want != Allow {
		return true
	}
	return got == Ask && c.want == Deny && !c.minAsk
}

func TestBashCorpus(t *testing.T) {
	t.Parallel()
	cases := loadBashCases(t)
	if len(cases) != 150 {
		t.Errorf("corpus has %d rows, want 150", len(cases))
	}
	e, err := New(t.TempDir(), corpusRules())
	if err != nil {
		t.Fatal(err)
	}
	var security, usability []string
	for _, c := range cases {
		d := e.CheckCommand(c.cmd)
		switch {
		case securityFailure(c, d.Verdict):
			security = append(security, c.id)
			t.Errorf("SECURITY %s: got %s, want %s\n%s", c.id, d.Verdict, c.want, d.Explain())
		case d.Verdict > c.want:
			usability = append(usability, c.id)
			t.Logf("usability %s: got %s, want %s\n%s", c.id, d.Verdict, c.want, d.Explain())
		}
	}
	t.Logf("%d rows: %d security failures %v, %d usability failures %v", len(cases), len(security), security, len(usability), usability)
	if 10*len(usability) >= len(cases) {
		t.Errorf("%d usability failures reach 10%% of %d rows", len(usability), len(cases))
	}
}

// TestBuiltinNeverAllowsCorpusDeny checks that the built-in defaults, with
// no configuration, allow nothing the corpus marks deny.
func TestBuiltinNeverAllowsCorpusDeny(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range loadBashCases(t) {
		d := e.CheckCommand(c.cmd)
		if c.want == Deny && d.Verdict < Ask {
			t.Errorf("%s: built-in defaults give %s for a deny row\n%s", c.id, d.Verdict, d.Explain())
		}
		if c.want == Ask && d.Verdict == Allow {
			t.Logf("%s: built-in defaults allow an ask row of the corpus rule set\n%s", c.id, d.Explain())
		}
	}
}
