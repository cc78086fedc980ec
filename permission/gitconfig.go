package permission

import (
	"strings"
)

// gitConfig checks a `key=value` given with git -c.
func (c *checker) gitConfig(kv word, pl *plan, via string) {
	pl.ask(kv.text, via+" overrides configuration")
	if !kv.static {
		return
	}
	k, v, _ := strings.Cut(kv.text, "=")
	k = strings.ToLower(k)
	switch {
	case strings.HasPrefix(k, "alias."):
		name := k[len("alias."):] // config keys are case-insensitive
		if strings.HasPrefix(v, "!") {
			w := word{text: v[1:], static: true}
			pl.inner = append(pl.inner, func() { c.nestedScript(w, via+" "+k) })
		} else {
			al, ok := splitCmdline(v)
			if !ok {
				al = []string{} // unclosed quote: git refuses it; ask
			}
			c.aliases[name] = al
		}
	case commandKey(k):
		v, ok := commandValue(k, v)
		if !ok {
			return
		}
		w := word{text: v, static: true}
		pl.inner = append(pl.inner, func() { c.nestedScript(w, via+" "+k) })
	}
}

// commandValue returns the shell command the value v of the command key k
// runs, and false when it runs none of its own: a credential helper NAME is
// the program git-credential-NAME, and `!cmd` is the shell command cmd; a
// submodule update mode other than `!cmd` (checkout, rebase, merge, none)
// runs nothing.
func commandValue(k, v string) (string, bool) {
	switch {
	case k == "credential.helper" || strings.HasSuffix(k, ".helper"):
		if !strings.HasPrefix(v, "!") && !strings.ContainsAny(v, " /") {
			return "", false // a git-credential-NAME helper
		}
		return strings.TrimPrefix(v, "!"), true
	case strings.HasPrefix(k, "submodule.") && strings.HasSuffix(k, ".update"):
		if !strings.HasPrefix(v, "!") {
			return "", false
		}
		return v[1:], true
	}
	return v, true
}

func hasAlias(m map[string][]string, k string) bool { _, ok := m[k]; return ok }

// splitCmdline splits an alias value the way git's split_cmdline does:
// words separated by white space, single and double quotes group, and a
// backslash outside single quotes takes the next character literally. It
// reports false for an unclosed quote or a trailing backslash, which git
// refuses.
func splitCmdline(s string) ([]string, bool) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote == 0 && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'):
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case quote == 0 && (ch == '\'' || ch == '"'):
			quote, inWord = ch, true
		case ch == quote:
			quote = 0
		case ch == '\\' && quote != '\'':
			if i+1 >= len(s) {
				return nil, false
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, true
}

// extCommand returns the command line of a git `ext::` remote URL, which
// git runs as a program (no shell): arguments are split at spaces, `% ` is
// a literal space and `%%` a percent sign.
func extCommand(url string) []word {
	var out []word
	var cur strings.Builder
	s := url[len("ext::"):]
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '%' && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '%'):
			i++
			cur.WriteByte(s[i])
		case s[i] == ' ':
			if cur.Len() > 0 {
				out = append(out, word{text: cur.String(), static: true})
				cur.Reset()
			}
		default:
			cur.WriteByte(s[i])
		}
	}
	if cur.Len() > 0 {
		out = append(out, word{text: cur.String(), static: true})
	}
	return out
}

var commandKeys = &pattern{expr: `^(core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy|hookspath)|` +
	`diff\.external|diff\..*\.(command|textconv)|difftool\..*\.cmd|mergetool\..*\.cmd|merge\..*\.driver|` +
	`filter\..*\.(clean|smudge|process)|credential\.(.*\.)?helper|sequence\.editor|gpg\.(.*\.)?program|` +
	`pager\..*|alias\..*|uploadpack\.packobjectshook|remote\..*\.(uploadpack|receivepack)|` +
	`sendemail\..*cmd|interactive\.difffilter|core\.alternaterefscommand|tar\..*\.command|gpg\.ssh\.defaultkeycommand|` +
	`trailer\..*\.(command|cmd)|submodule\..*\.update|ssh\.variant|include\.path|includeif\..*|init\.templatedir|web\.browser|browser\..*\.cmd|man\..*\.cmd)$`}

// commandKey reports git configuration keys whose value is a command (or
// names files that hold commands).
func commandKey(k string) bool { return commandKeys.get().MatchString(k) }
