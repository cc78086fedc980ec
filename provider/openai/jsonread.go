package openai

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonReader reads JSON the way encoding/json's Unmarshal does, for the
// few shapes this package decodes on its hot paths without reflection (a
// type's first Unmarshal builds its decoder by reflection, about 0.1 ms,
// and every later one costs several times what reading the bytes does):
// the window cache (readWindows) and the stream's chunks (readChunk).
// Each reader built on it returns !ok for anything it does not decode
// exactly as encoding/json would, and its caller then asks encoding/json;
// a fuzz test holds each to encoding/json's result.
type jsonReader struct {
	b []byte
	i int
}

// maxSkipDepth bounds the nesting value skips; deeper values are left to
// encoding/json (whose own limit is 10,000).
const maxSkipDepth = 128

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

// peek returns the next byte after white space, 0 at the end.
func (r *jsonReader) peek() byte {
	r.space()
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
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

// str reads a string and decodes it as json does: its escapes decoded, a
// surrogate escape that is not half of a pair and a byte that is not
// UTF-8 each turned into U+FFFD. A control character or an unknown
// escape is !ok: json refuses both.
func (r *jsonReader) str() (string, bool) {
	raw, ok := r.rawStr()
	if !ok {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw), true
	}
	return unquote(raw), true
}

// rawStr reads a string and returns the bytes between its quotes, its
// syntax checked as json's scanner does (which lets any byte from 0x20
// through, UTF-8 or not).
func (r *jsonReader) rawStr() ([]byte, bool) {
	if !r.byte('"') {
		return nil, false
	}
	start := r.i
	for r.i < len(r.b) {
		switch c := r.b[r.i]; {
		case c == '"':
			raw := r.b[start:r.i]
			r.i++
			return raw, true
		case c < 0x20:
			return nil, false
		case c == '\\':
			if r.i+1 >= len(r.b) {
				return nil, false
			}
			switch r.b[r.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				r.i += 2
			case 'u':
				if r.i+6 > len(r.b) || hex4(r.b[r.i+2:r.i+6]) < 0 {
					return nil, false
				}
				r.i += 6
			default:
				return nil, false
			}
		default:
			r.i++
		}
	}
	return nil, false
}

// hex4 is the value of four hex digits, -1 if they are not.
func hex4(b []byte) rune {
	var v rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		v = v<<4 | rune(c)
	}
	return v
}

// unquote decodes the bytes of a string rawStr checked, as json's own
// unquote does.
func unquote(raw []byte) string {
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); {
		switch c := raw[i]; {
		case c == '\\' && raw[i+1] == 'u':
			rr := hex4(raw[i+2:])
			i += 6
			if utf16.IsSurrogate(rr) {
				next := rune(-1)
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					next = hex4(raw[i+2:])
				}
				if dec := utf16.DecodeRune(rr, next); dec != unicode.ReplacementChar {
					b.WriteRune(dec)
					i += 6
					continue
				}
				rr = unicode.ReplacementChar
			}
			b.WriteRune(rr)
		case c == '\\':
			b.WriteByte(jsonEscaped[raw[i+1]])
			i += 2
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			rr, size := utf8.DecodeRune(raw[i:])
			b.WriteRune(rr) // RuneError for a byte that is not UTF-8
			i += size
		}
	}
	return b.String()
}

// jsonEscaped is what each one-letter escape stands for.
var jsonEscaped = [256]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', '"': '"', '\\': '\\', '/': '/'}

// value reads one value of any type, its syntax checked as json's scanner
// does, and returns its bytes (what json gives a json.RawMessage).
func (r *jsonReader) value() ([]byte, bool) {
	r.space()
	start := r.i
	if !r.skip(0) {
		return nil, false
	}
	return r.b[start:r.i], true
}

func (r *jsonReader) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	switch c := r.peek(); {
	case c == '{':
		r.i++
		if r.byte('}') {
			return true
		}
		for {
			if _, ok := r.rawStr(); !ok || !r.byte(':') || !r.skip(depth+1) {
				return false
			}
			if r.byte('}') {
				return true
			}
			if !r.byte(',') {
				return false
			}
		}
	case c == '[':
		r.i++
		if r.byte(']') {
			return true
		}
		for {
			if !r.skip(depth + 1) {
				return false
			}
			if r.byte(']') {
				return true
			}
			if !r.byte(',') {
				return false
			}
		}
	case c == '"':
		_, ok := r.rawStr()
		return ok
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	case c == 't':
		return r.word("true")
	case c == 'f':
		return r.word("false")
	case c == 'n':
		return r.word("null")
	}
	return false
}

// number reads a number in JSON's grammar.
func (r *jsonReader) number() bool {
	b, i := r.b, r.i
	digits := func() int {
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - d
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	r.i = i
	return true
}

// object reads an object into a struct whose JSON names are names:
// field(i) reads the value of the member named names[i]; other members
// are skipped. It is !ok for what json would read otherwise or refuse,
// a member given twice (json merges the two values) and a name that
// matches one of names only without regard to case among them.
func (r *jsonReader) object(names []string, field func(i int) bool) bool {
	if !r.byte('{') {
		return false
	}
	if r.byte('}') {
		return true
	}
	var seen uint64
	for {
		name, ok := r.str()
		if !ok || !r.byte(':') {
			return false
		}
		switch i := fieldIndex(names, name); {
		case i >= 0:
			if seen&(1<<i) != 0 || !field(i) {
				return false
			}
			seen |= 1 << i
		case i == -2:
			return false
		default:
			if _, ok := r.value(); !ok {
				return false
			}
		}
		if r.byte('}') {
			return true
		}
		if !r.byte(',') {
			return false
		}
	}
}

// fieldIndex is the index of name in names, -2 when it matches one only
// without regard to case, -1 when it matches none.
func fieldIndex(names []string, name string) int {
	folded := -1
	for i, n := range names {
		if n == name {
			return i
		}
		if folded == -1 && strings.EqualFold(n, name) {
			folded = -2
		}
	}
	return folded
}
