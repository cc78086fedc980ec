// Package tomlpos finds where a key is defined in a TOML document, for
// error messages: the TOML decoder keeps key positions private.
package tomlpos

import (
	"strconv"
	"strings"
)

// KeyLine returns the 1-based line where the dotted key is defined, or 0.
// It follows [table] headers and dotted keys; when the full key is not
// found it falls back to the first line defining its last part.
func KeyLine(data []byte, key []string) int {
	want := strings.Join(key, ".")
	table := ""
	fallback := 0
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' {
			continue
		}
		if strings.HasPrefix(t, "[") {
			h := strings.Trim(t, "[] \t")
			if j := strings.Index(h, "]"); j >= 0 {
				h = h[:j]
			}
			table = normKey(h)
			if table == want {
				return i + 1
			}
			continue
		}
		k, _, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		full := normKey(k)
		if table != "" {
			full = table + "." + full
		}
		if full == want || strings.HasPrefix(want, full+".") {
			return i + 1
		}
		if fallback == 0 && len(key) > 0 && normKey(k) == key[len(key)-1] {
			fallback = i + 1
		}
	}
	return fallback
}

// normKey turns `a . "b" . c` into `a.b.c`.
func normKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if u, err := strconv.Unquote(p); err == nil {
			p = u
		} else {
			p = strings.Trim(p, "'")
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}
