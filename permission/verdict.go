package permission

import (
	"fmt"
	"strings"
)

// Verdict is the outcome of a check. The zero value is Undecided, which
// callers must treat like Deny: only Allow lets a call run unasked.
type Verdict int

// Verdicts in increasing strictness.
const (
	Undecided Verdict = iota
	Allow
	Ask
	Deny
)

// String returns "allow", "ask", "deny" or "undecided".
func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "undecided"
}

// ParseVerdict parses "allow", "ask" or "deny".
func ParseVerdict(s string) (Verdict, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return Undecided, fmt.Errorf("invalid verdict %q: want \"allow\", \"ask\" or \"deny\"", s)
}

// MarshalText implements encoding.TextMarshaler.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler, so a Verdict can be a
// TOML or JSON string.
func (v *Verdict) UnmarshalText(b []byte) error {
	p, err := ParseVerdict(string(b))
	if err != nil {
		return err
	}
	*v = p
	return nil
}

// Max returns the stricter verdict. Undecided counts as stricter than Allow
// but is otherwise ignored, so Max(Undecided, Ask) is Ask.
func Max(vs ...Verdict) Verdict {
	out := Undecided
	for _, v := range vs {
		if v > out {
			out = v
		}
	}
	return out
}

// Part is one checked piece of a call: a simple command of a shell command
// line, a redirection, or the path a file tool touches.
type Part struct {
	Text    string  // the normalised command or path
	Verdict Verdict // the verdict for this part alone
	Reason  string  // the rule or structural reason that decided it
	// Structural is true when the verdict comes from a structural check that
	// the rule lists and session approvals cannot lift.
	Structural bool
	// Suggest is the rule AllowForSession would accept to stop asking for
	// this part, or "" when no session rule can (deny, structural asks).
	Suggest string
}

// Decision is the verdict for a whole call and the parts it came from.
type Decision struct {
	Verdict Verdict
	Reason  string // the reason of the first part with the final verdict
	Parts   []Part
}

// add appends a part and raises the decision's verdict.
func (d *Decision) add(p Part) {
	d.Parts = append(d.Parts, p)
	if p.Verdict > d.Verdict {
		d.Verdict = p.Verdict
		d.Reason = p.Reason
	}
}

// Explain renders the decision for a person: the verdict is the first word
// of the first line, then one line per part with the reason that decided it.
// Control, bidi and invisible characters are escaped so the text cannot hide
// a part.
func (d Decision) Explain() string {
	var b strings.Builder
	b.WriteString(d.Verdict.String())
	if d.Reason != "" {
		b.WriteString(": ")
		b.WriteString(visible(d.Reason))
	}
	b.WriteByte('\n')
	for _, p := range d.Parts {
		fmt.Fprintf(&b, "  %-5s %s  (%s)", p.Verdict, visible(p.Text), visible(p.Reason))
		if p.Suggest != "" {
			fmt.Fprintf(&b, " [allow for session: `%s`]", visible(p.Suggest))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// visible escapes characters that would let text hide or reorder itself on
// screen, and collapses long runs of spaces.
func visible(s string) string {
	var b strings.Builder
	spaces := 0
	flush := func() {
		if spaces > 3 {
			fmt.Fprintf(&b, " <%d spaces> ", spaces)
		} else {
			b.WriteString(strings.Repeat(" ", spaces))
		}
		spaces = 0
	}
	for _, r := range s {
		if r == ' ' {
			spaces++
			continue
		}
		flush()
		if r < 0x20 || hostileRune(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	flush()
	return b.String()
}
