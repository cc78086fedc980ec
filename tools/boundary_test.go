package tools

import (
	"errors"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	const root = "/home/u/proj"
	tests := []struct {
		path string
		want string // "" means refused
		why  string // substring of the refusal
	}{
		{"a.go", "a.go", ""},
		{"./src/a.go", "src/a.go", ""},
		{"src//a.go", "src/a.go", ""},
		{"src/../a.go", "a.go", ""},
		{"src/", "src", ""},
		{".", ".", ""},
		{"/home/u/proj", ".", ""},
		{"/home/u/proj/", ".", ""},
		{"/home/u/proj/src/a.go", "src/a.go", ""},
		{"/home/u/proj/../proj/a.go", "a.go", ""},
		{"file:///home/u/proj/src/a.go", "src/a.go", ""},
		{"file://localhost/home/u/proj/a%20b.go", "a b.go", ""},
		{"name with spaces and ünïcode.txt", "name with spaces and ünïcode.txt", ""},
		{"a:b", "a:b", ""},
		{"weird~name", "weird~name", ""},
		{"x$y", "x$y", ""},
		{"\uFFFD.txt", "\uFFFD.txt", ""},

		{"..", "", "climb above"},
		{"../x", "", "climb above"},
		{"src/../../x", "", "climb above"},
		{"/home/u/proj-evil/secret", "", "not under the workspace root"},
		{"/home/u/projx", "", "not under the workspace root"},
		{"/home/u", "", "not under the workspace root"},
		{"/", "", "not under the workspace root"},
		{"/home/u/proj/../proj-evil/x", "", "not under the workspace root"},
		{"~", "", "~ is not expanded"},
		{"~/.ssh/id_rsa", "", "~ is not expanded"},
		{"~root/.ssh/id_rsa", "", "~ is not expanded"},
		{"$HOME/.aws/credentials", "", "$VARIABLES are not expanded"},
		{"${HOME}/x", "", "$VARIABLES are not expanded"},
		{`..\..\etc\passwd`, "", "backslashes"},
		{`src\a.go`, "", "backslashes"},
		{`C:\Users\u\.ssh\id_rsa`, "", "backslashes"},
		{"C:/Users/u/.ssh/id_rsa", "", "drive paths"},
		{"c:", "", "drive paths"},
		{`\\?\C:\Windows\win.ini`, "", "backslashes"},
		{"file:///home/u/proj/..%2f..%2fetc%2fpasswd", "", "not under the workspace root"},
		{"file:///home/u/proj/a%00b", "", "NUL"},
		{"file:///home/u/proj/a%5cb", "", "backslash"},
		{"file://evil.example/home/u/proj/a.go", "", "only file:// URIs on this machine"},
		{"http://example.com/a.go", "", "only file:// URIs"},
		{"a.go\x00", "", "NUL"},
		{"a\nb", "", "control character U+000A"},
		{"a\rb", "", "control character U+000D"},
		{"a\tb", "", "control character U+0009"},
		{"a\x1bb", "", "control character U+001B"},
		{"a\u0085b", "", "control character U+0085"},
		{"a\u202eb", "", "bidi"},
		{"a\u200bb", "", "invisible"},
		{"a\xffb", "", "not valid UTF-8"},
		{strings.Repeat("a/", 2100), "", "over the 4096-byte limit"},
	}
	for _, tt := range tests {
		got, err := Resolve(root, tt.path)
		if tt.want != "" {
			if err != nil || got != tt.want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("Resolve(%q) = %q, want a refusal (%s)", tt.path, got, tt.why)
			continue
		}
		if !errors.Is(err, ErrOutside) || !strings.Contains(err.Error(), "outside the workspace") || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("Resolve(%q) error %q: want ErrOutside mentioning %q", tt.path, err, tt.why)
		}
	}
	if _, err := Resolve(root, ""); err == nil || !strings.Contains(err.Error(), "path is empty") {
		t.Errorf("empty path: %v", err)
	}
}

func TestResolveRootSlash(t *testing.T) {
	t.Parallel()
	// A workspace at / (odd, but it must not turn into a prefix of nothing).
	if got, err := Resolve("/", "/etc/hosts"); err != nil || got != "etc/hosts" {
		t.Fatalf("got %q, %v", got, err)
	}
}
