package openai

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// readWindows decodes the window cache's file as json.Unmarshal would
// into a map[string]windowEntry, without encoding/json: the cache is read
// at every start of `agent-lsp run`, before its first request, and
// encoding/json's first decode of a type there cost about 0.1 ms. It
// takes what the cache writes (an object of objects of strings, integers,
// booleans and nulls, field names exact) and reports !ok for anything
// else, a broken or hand-edited file included; the caller then decodes
// with encoding/json. FuzzReadWindows holds the two to the same result.
func readWindows(data []byte) (map[string]windowEntry, bool) {
	r := &jsonReader{b: data}
	if r.word("null") {
		return nil, r.end()
	}
	if !r.byte('{') {
		return nil, false
	}
	m := map[string]windowEntry{}
	if r.byte('}') {
		return m, r.end()
	}
	for {
		key, ok := r.str()
		if !ok || !r.byte(':') {
			return nil, false
		}
		var e windowEntry
		if !r.word("null") { // null leaves the zero entry, as json does
			if e, ok = r.entry(); !ok {
				return nil, false
			}
		}
		m[key] = e
		if r.byte('}') {
			return m, r.end()
		}
		if !r.byte(',') {
			return nil, false
		}
	}
}

// entry reads one windowEntry object.
func (r *jsonReader) entry() (windowEntry, bool) {
	var e windowEntry
	if !r.byte('{') {
		return e, false
	}
	if r.byte('}') {
		return e, true
	}
	for {
		name, ok := r.str()
		if !ok || !r.byte(':') {
			return e, false
		}
		if !r.word("null") { // null leaves the field as it is, as json does
			switch name {
			case "tokens":
				e.Tokens, ok = r.int()
			case "native":
				e.Native, ok = r.int()
			case "noWindow":
				e.NoWindow, ok = r.bool()
			case "probed":
				// time.Time parses the string as it stands in the file,
				// escapes and all: one with escapes goes to json.
				var s string
				if s, ok = r.str(); ok {
					ok = !r.escaped && e.Probed.UnmarshalText([]byte(s)) == nil
				}
			case "source":
				e.Source, ok = r.str()
			case "server":
				var s string
				s, ok = r.str()
				e.Server = ServerKind(s)
			case "tools":
				var s string
				s, ok = r.str()
				e.Tools = Support(s)
			default:
				// json matches names without regard to case and skips
				// unknown ones with any value: leave both to it.
				return e, false
			}
			if !ok {
				return e, false
			}
		}
		if r.byte('}') {
			return e, true
		}
		if !r.byte(',') {
			return e, false
		}
	}
}

// jsonReader reads the JSON values readWindows takes.
type jsonReader struct {
	b       []byte
	i       int
	escaped bool // the last string read had escapes
}

func (r *jsonReader) space() {
	for r.i < len(r.b) && (r.b[r.i] == ' ' || r.b[r.i] == '\t' || r.b[r.i] == '\n' || r.b[r.i] == '\r') {
		r.i++
	}
}

// byte consumes c, after white space, if it comes next.
func (r *jsonReader) byte(c byte) bool {
	r.space()
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// word consumes the literal w (null, true, false) if it comes next.
func (r *jsonReader) word(w string) bool {
	r.space()
	if !bytes.HasPrefix(r.b[r.i:], []byte(w)) {
		return false
	}
	if j := r.i + len(w); j < len(r.b) && (r.b[j] >= 'a' && r.b[j] <= 'z' || r.b[j] >= '0' && r.b[j] <= '9') {
		return false // "nullx" is no literal
	}
	r.i += len(w)
	return true
}

func (r *jsonReader) end() bool {
	r.space()
	return r.i == len(r.b)
}

func (r *jsonReader) bool() (bool, bool) {
	switch {
	case r.word("true"):
		return true, true
	case r.word("false"):
		return false, true
	}
	return false, false
}

// int reads an integer in JSON's grammar (no fraction, no exponent: json
// refuses those for an int field).
func (r *jsonReader) int() (int, bool) {
	r.space()
	j := r.i
	if j < len(r.b) && r.b[j] == '-' {
		j++
	}
	d := j
	for j < len(r.b) && r.b[j] >= '0' && r.b[j] <= '9' {
		j++
	}
	if j == d || r.b[d] == '0' && j-d > 1 {
		return 0, false
	}
	if j < len(r.b) && (r.b[j] == '.' || r.b[j] == 'e' || r.b[j] == 'E') {
		return 0, false
	}
	n, err := strconv.Atoi(string(r.b[r.i:j]))
	if err != nil {
		return 0, false // out of range: json refuses it too
	}
	r.i = j
	return n, true
}

// str reads a string. Escapes other than json's own, control characters,
// surrogate escapes and invalid UTF-8 (which json replaces) are !ok.
func (r *jsonReader) str() (string, bool) {
	if !r.byte('"') {
		return "", false
	}
	start := r.i
	r.escaped = false
	for r.i < len(r.b) {
		switch c := r.b[r.i]; {
		case c == '"':
			raw := r.b[start:r.i]
			r.i++
			if !utf8.Valid(raw) {
				return "", false
			}
			if !r.escaped {
				return string(raw), true
			}
			return unescape(raw), true
		case c < 0x20:
			return "", false
		case c == '\\':
			r.escaped = true
			if r.i+1 >= len(r.b) {
				return "", false
			}
			switch r.b[r.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				r.i += 2
			case 'u':
				if r.i+6 > len(r.b) {
					return "", false
				}
				v, err := strconv.ParseUint(string(r.b[r.i+2:r.i+6]), 16, 16)
				if err != nil || v >= 0xd800 && v < 0xe000 {
					return "", false
				}
				r.i += 6
			default:
				return "", false
			}
		default:
			r.i++
		}
	}
	return "", false
}

// unescape decodes the escapes str let through.
func unescape(raw []byte) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		switch {
		case raw[i] != '\\':
			b.WriteByte(raw[i])
		case raw[i+1] == 'u':
			v, _ := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
			b.WriteRune(rune(v))
			i += 5
		default:
			b.WriteByte(jsonEscaped[raw[i+1]])
			i++
		}
	}
	return b.String()
}

// jsonEscaped is what each one-letter escape stands for.
var jsonEscaped = [256]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', '"': '"', '\\': '\\', '/': '/'}
