package tools

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

const testKey = "sk-live-Ab3/+x_9?&=Zq"

func TestRedactorEncodings(t *testing.T) {
	t.Parallel()
	r := NewRedactor(testKey, "short", "")
	b64 := func(enc *base64.Encoding, prefix, s, suffix string) string {
		return enc.EncodeToString([]byte(prefix + s + suffix))
	}
	rev := []byte(testKey)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	cases := map[string]string{
		"literal":         "key=" + testKey + "\n",
		"reversed":        "out: " + string(rev),
		"hex":             hex.EncodeToString([]byte(testKey)),
		"HEX":             strings.ToUpper(hex.EncodeToString([]byte(testKey))),
		"hex in xxd -p":   "6b65793d" + hex.EncodeToString([]byte(testKey)) + "0a",
		"query escaped":   "u?k=" + url.QueryEscape(testKey),
		"path escaped":    "/p/" + url.PathEscape(testKey),
		"base64 padded":   base64.StdEncoding.EncodeToString([]byte(testKey)),
		"base64 raw url":  base64.RawURLEncoding.EncodeToString([]byte(testKey)),
		"base64 stream 0": b64(base64.StdEncoding, "api_key = \"", testKey, "\"\n"),
		"base64 stream 1": b64(base64.StdEncoding, "a", testKey, "tail"),
		"base64 stream 2": b64(base64.StdEncoding, "ab", testKey, "t"),
		"base64 url 1":    b64(base64.URLEncoding, "x", testKey, ""),
		"base64 url 2":    b64(base64.RawURLEncoding, "xy", testKey, "zz"),
		"twice":           testKey + testKey,
	}
	for name, text := range cases {
		got, n := r.Redact(text)
		if n == 0 || !strings.Contains(got, RedactedMark) {
			t.Errorf("%s: not redacted: %q", name, got)
		}
		// Nothing longer than 7 characters of any form survives.
		for _, p := range r.patterns {
			if strings.Contains(got, p[:MinSecretLen]) && len(p) > 12 {
				t.Errorf("%s: a piece of %q survives in %q", name, p, got)
			}
		}
	}
	for _, keep := range []string{"short and shorter", "ordinary output\n", ""} {
		if got, n := r.Redact(keep); got != keep || n != 0 {
			t.Errorf("Redact(%q) = %q, %d", keep, got, n)
		}
	}
	if NewRedactor("tiny", "") != nil {
		t.Error("a Redactor of only short values should be nil")
	}
	var none *Redactor
	if got, n := none.Redact(testKey); got != testKey || n != 0 {
		t.Error("a nil Redactor changed the text")
	}
}

// TestDispatcherRedactsFileTools: read_file output passes the redactor
// too (issue 10: the key sat in the user's config and read_file showed it).
func TestDispatcherRedactsFileTools(t *testing.T) {
	t.Parallel()
	enc := base64.StdEncoding.EncodeToString([]byte("api_key = \"" + testKey + "\"\n"))
	ws, _ := newWS(t, map[string]string{"config.toml": "api_key = \"" + testKey + "\"\n", "enc.txt": enc + "\n"})
	d := NewDispatcher(NewRegistry(NewReadFile(ws), NewGrep(ws)), WithRedactor(NewRedactor(testKey)))
	for _, c := range []Call{
		{ID: "1", Name: "read_file", Arguments: `{"path":"config.toml"}`},
		{ID: "2", Name: "read_file", Arguments: `{"path":"enc.txt"}`},
		{ID: "3", Name: "grep", Arguments: `{"pattern":"api_key"}`},
	} {
		r := d.Dispatch(context.Background(), c)
		if strings.Contains(r.Text, "Ab3/+x") || strings.Contains(r.Text, enc[16:32]) || !strings.Contains(r.Text, RedactedMark) {
			t.Errorf("%s: %s", c.Name, r.Text)
		}
	}
}

func BenchmarkRedact1MiB(b *testing.B) {
	secrets := []string{testKey, "ghp_0123456789abcdefABCDEF0123456789abcd", "Bearer eyJhbGciOiJIUzI1NiJ9.payload", "hunter2hunter2"}
	r := NewRedactor(secrets...)
	var sb strings.Builder
	rng := rand.New(rand.NewPCG(1, 2))
	for sb.Len() < 1<<20 {
		sb.WriteString("ok  \tgithub.com/example/pkg/")
		sb.WriteString(strings.Repeat("x", rng.IntN(40)))
		sb.WriteString("\t0.012s coverage: 81.2% of statements\n")
	}
	text := sb.String()[:1<<20-len(testKey)] + testKey
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, n := r.Redact(text); n != 1 {
			b.Fatal(n)
		}
	}
}
