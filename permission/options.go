package permission

import (
	"slices"
	"strings"
)

// operands returns the non-option arguments.
func operands(args []word) []word {
	var out []word
	opts := true
	for _, a := range args {
		if opts && a.text == "--" {
			opts = false
			continue
		}
		if opts && strings.HasPrefix(a.text, "-") && len(a.text) > 1 {
			continue
		}
		out = append(out, a)
	}
	return out
}

// skipOptions drops leading options and returns the command that follows.
// short lists single-letter options that take a value; long lists long
// options that take one (also accepted as --opt=value).
func skipOptions(args []word, short string, long []string) []word {
	i := 0
	for i < len(args) {
		t := args[i].text
		if t == "--" {
			return args[i+1:]
		}
		if !strings.HasPrefix(t, "-") || len(t) < 2 {
			break
		}
		if strings.HasPrefix(t, "--") {
			if !strings.Contains(t, "=") {
				for _, l := range long {
					// getopt_long takes a unique prefix too (xargs
					// --arg-f FILE); a shared one is an error there.
					if t == l || len(t) > 3 && strings.HasPrefix(l, t) {
						i++
						break
					}
				}
			}
			i++
			continue
		}
		// -abc: the first letter taking a value consumes the rest or the
		// next argument.
		for k := 1; k < len(t); k++ {
			if strings.IndexByte(short, t[k]) >= 0 {
				if k == len(t)-1 {
					i++
				}
				break
			}
		}
		i++
	}
	if i > len(args) {
		i = len(args)
	}
	return args[i:]
}

// optValue returns the value of option name at args[i], written as
// `name value`, `name=value` or, for short options, `-Xvalue`.
func optValue(args []word, i int, names ...string) (word, bool) {
	t := args[i].text
	for _, n := range names {
		switch {
		case t == n:
			if i+1 < len(args) {
				return args[i+1], true
			}
			return word{text: "", static: true}, true
		case strings.HasPrefix(t, n+"="):
			return word{text: t[len(n)+1:], static: args[i].static}, true
		case len(n) == 2 && n[0] == '-' && n[1] != '-' && strings.HasPrefix(t, n) && len(t) > 2 && t[1] != '-':
			return word{text: t[2:], static: args[i].static}, true
		}
	}
	return word{}, false
}

// concatWords joins words with spaces the way eval and watch do.
func concatWords(ws []word) word {
	out := word{static: true}
	var s []string
	for _, w := range ws {
		s = append(s, w.text)
		out.static = out.static && w.static
	}
	out.text = strings.Join(s, " ")
	return out
}

// longPrefixes spells the unique-prefix abbreviations getopt_long accepts
// (--compress-prog=X, --expr X) as the long options full they stand for,
// so the checks that look for those options see them. A prefix two
// options share is an error in the program; reading it as the checked
// option is the stricter choice.
func longPrefixes(args []word, full ...string) []word { return expandLong(args, nil, full) }

// expandLong is longPrefixes for a program with options of its own that
// are prefixes of a checked one (git's --text of --textconv): those stay
// as written.
func expandLong(args []word, own, full []string) []word {
	var out []word
	for i, a := range args {
		if a.text == "--" {
			break
		}
		name, val, eq := strings.Cut(a.text, "=")
		if !strings.HasPrefix(name, "--") || len(name) < 3 || slices.Contains(own, name) {
			continue
		}
		for _, f := range full {
			if name != f && strings.HasPrefix(f, name) {
				if out == nil {
					out = append([]word(nil), args...)
				}
				out[i].text = f
				if eq {
					out[i].text += "=" + val
				}
				break
			}
		}
	}
	if out == nil {
		return args
	}
	return out
}
