package tools

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
)

// RedactedMark replaces a secret in tool output.
const RedactedMark = "[REDACTED]"

// MinSecretLen is the shortest secret a Redactor looks for: shorter values
// would mangle ordinary output.
const MinSecretLen = 8

// Redactor replaces secret values (the API key, header values, credential-
// like environment values) in tool output, in their literal form and in
// the encodings a command can produce cheaply: reversed (rev), base64 (std
// and URL alphabets, padded or not, at each of the three byte alignments,
// so a secret inside a longer base64 stream is caught), hex (lower and
// upper case) and URL-encoded. A nil *Redactor redacts nothing.
type Redactor struct {
	patterns []string // longest first, so overlapping forms are cut whole
	first    [256]bool
}

// NewRedactor returns a Redactor for secrets; values shorter than
// MinSecretLen are ignored. It returns nil when nothing is left.
func NewRedactor(secrets ...string) *Redactor {
	seen := map[string]bool{}
	r := &Redactor{}
	add := func(p string) {
		if len(p) >= MinSecretLen && !seen[p] {
			seen[p] = true
			r.patterns = append(r.patterns, p)
			r.first[p[0]] = true
		}
	}
	for _, s := range secrets {
		if len(s) < MinSecretLen {
			continue
		}
		add(s)
		add(reverse(s))
		add(hex.EncodeToString([]byte(s)))
		add(strings.ToUpper(hex.EncodeToString([]byte(s))))
		add(url.QueryEscape(s))
		add(url.PathEscape(s))
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			for k := 0; k < 3; k++ {
				add(base64Core(enc, s, k))
			}
		}
	}
	if len(r.patterns) == 0 {
		return nil
	}
	slices.SortFunc(r.patterns, func(a, b string) int { return len(b) - len(a) })
	return r
}

// base64Core is the part of the base64 encoding of secret, placed k bytes
// into a stream, that depends on the secret's bytes alone: the characters
// whose six bits all fall inside it. Any base64 text holding the secret at
// that alignment, padded or not, contains it.
func base64Core(enc *base64.Encoding, secret string, k int) string {
	e := enc.EncodeToString(append(make([]byte, k), secret...))
	start := (8*k + 5) / 6
	end := 8 * (k + len(secret)) / 6
	if end > len(e) {
		end = len(e)
	}
	if start >= end {
		return ""
	}
	return e[start:end]
}

func reverse(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

// Redact returns text with every occurrence of every form replaced by
// RedactedMark, and how many were replaced.
func (r *Redactor) Redact(text string) (string, int) {
	if r == nil || len(text) < MinSecretLen {
		return text, 0
	}
	// Find all matches with strings.Index (SIMD for the first byte), then
	// merge overlapping spans and rebuild once.
	type span struct{ from, to int }
	var spans []span
	for _, p := range r.patterns {
		for off := 0; ; {
			i := strings.Index(text[off:], p)
			if i < 0 {
				break
			}
			spans = append(spans, span{off + i, off + i + len(p)})
			off += i + len(p)
		}
	}
	if len(spans) == 0 {
		return text, 0
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	var b strings.Builder
	b.Grow(len(text))
	last, n := 0, 0
	for _, s := range spans {
		if s.from < last {
			if s.to > last {
				last = s.to // overlaps the previous match: extend it
			}
			continue
		}
		b.WriteString(text[last:s.from])
		b.WriteString(RedactedMark)
		last = s.to
		n++
	}
	b.WriteString(text[last:])
	return b.String(), n
}

// WithRedactor makes the dispatcher redact every result's text (every
// tool's, the file tools' included) before it leaves Dispatch.
func WithRedactor(r *Redactor) Option { return func(d *Dispatcher) { d.redactor = r } }
