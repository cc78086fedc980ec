package config

import (
	"strings"

	"github.com/BurntSushi/toml"
)

// KeyLine finds the line (1-based) where a key is defined in a TOML
// document, or 0. The TOML library keeps key positions private, so this
// walks table headers and key lines; it handles the forms our files use
// ([a.b] tables, dotted and quoted keys) and is only used for messages.
func KeyLine(data []byte, key toml.Key) int {
	table := ""
	lines := strings.Split(string(data), "\n")
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			h := strings.Trim(line, "[] \t")
			if j := strings.Index(h, "#"); j >= 0 {
				h = strings.TrimSpace(strings.Trim(h[:j], "] \t"))
			}
			table = normKey(h)
			if table == normKey(strings.Join(key, ".")) {
				return i + 1
			}
			continue
		}
		eq := strings.Index(line, "=")
		if eq < 0 {
			continue
		}
		k := normKey(line[:eq])
		full := k
		if table != "" {
			full = table + "." + k
		}
		want := normKey(strings.Join(key, "."))
		if full == want || strings.HasPrefix(want, full+".") {
			return i + 1
		}
	}
	return 0
}

func normKey(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
