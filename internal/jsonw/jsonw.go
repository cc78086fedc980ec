// Package jsonw writes JSON by hand, byte for byte as encoding/json
// would, for the few encodings on the path of a fresh process (the first
// request body, the first transcript records): encoding/json builds a
// type's encoder by reflection at its first Marshal, a cost paid in every
// `agent-lsp run` before its answer.
package jsonw

import "unicode/utf8"

// AppendString appends s as a JSON string, escaped as encoding/json
// escapes it: '"', '\\' and control characters; '<', '>' and '&' (its
// HTML-safe default); U+2028 and U+2029; and each byte of invalid UTF-8 as
// \ufffd.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if plain[s[i]] {
			i++
			continue
		}
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// plain holds the bytes written as they are: ASCII but for control
// characters, '"', '\\' and the HTML-sensitive '<', '>' and '&'.
var plain = [256]bool{
	' ': true, '!': true, '#': true, '$': true, '%': true, '\'': true,
	'(': true, ')': true, '*': true, '+': true, ',': true, '-': true, '.': true,
	'/': true, '0': true, '1': true, '2': true, '3': true, '4': true, '5': true,
	'6': true, '7': true, '8': true, '9': true, ':': true, ';': true, '=': true,
	'?': true, '@': true, 'A': true, 'B': true, 'C': true, 'D': true, 'E': true,
	'F': true, 'G': true, 'H': true, 'I': true, 'J': true, 'K': true, 'L': true,
	'M': true, 'N': true, 'O': true, 'P': true, 'Q': true, 'R': true, 'S': true,
	'T': true, 'U': true, 'V': true, 'W': true, 'X': true, 'Y': true, 'Z': true,
	'[': true, ']': true, '^': true, '_': true, '`': true, 'a': true, 'b': true,
	'c': true, 'd': true, 'e': true, 'f': true, 'g': true, 'h': true, 'i': true,
	'j': true, 'k': true, 'l': true, 'm': true, 'n': true, 'o': true, 'p': true,
	'q': true, 'r': true, 's': true, 't': true, 'u': true, 'v': true, 'w': true,
	'x': true, 'y': true, 'z': true, '{': true, '|': true, '}': true, '~': true,
	0x7f: true,
}
