package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/internal/text"
)

// Limits on the raw arguments of one call. They bound memory and time
// whatever the model sends (model cases M15, M16).
const (
	// DefaultMaxArgBytes caps the raw arguments string of one call.
	DefaultMaxArgBytes = 1 << 20
	// maxArgDepth caps the nesting of objects and arrays. No tool needs
	// more than a few levels; the walk is iterative, so the limit is about
	// intent, not about the stack.
	maxArgDepth = 64
	// maxArgValues caps the number of JSON values (strings, numbers,
	// objects, ...) in one call's arguments: a 1 MiB array of zeros would
	// otherwise cost about 100 MB of allocations to decode.
	maxArgValues = 100_000
)

// argError is an arguments problem the model can fix. Its text has no
// "Error:" prefix and no call id; the dispatcher adds both.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func argErrorf(format string, a ...any) *argError {
	return &argError{msg: fmt.Sprintf(format, a...)}
}

// decodeArgs turns the raw arguments string of a call into a JSON object
// (map[string]any of map[string]any, []any, string, json.Number, bool and
// nil). It is strict where ambiguity could let the checker and the
// executor disagree:
//
//  1. more than maxBytes bytes is an error (M15);
//  2. invalid UTF-8 is an error with its byte offset (M17);
//  3. "" and "null" mean {} (M04, M05);
//  4. a JSON string whose content is an object is decoded once more (M02);
//  5. anything after the first value is an error with its offset (M03);
//  6. a non-object is an error naming what it got (M06);
//  7. a key repeated in one object, at any depth, is an error (M12);
//  8. nesting deeper than maxArgDepth is an error (M16);
//  9. a NUL character in any key or string is an error (M14).
//
// The notes it returns are for the model (for example about M02).
func decodeArgs(raw string, maxBytes int) (obj map[string]any, notes []string, err error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxArgBytes
	}
	if len(raw) > maxBytes {
		return nil, nil, argErrorf("arguments are %s, over the %s limit; send smaller arguments (write large files in parts, e.g. create the file and then append with str_replace)",
			text.Size(int64(len(raw))), text.Size(int64(maxBytes)))
	}
	v, err := parseJSON([]byte(raw), "")
	if err != nil {
		return nil, nil, err
	}
	if s, ok := v.(string); ok && strings.HasPrefix(strings.TrimSpace(s), "{") {
		// Double-encoded (M02): one extra level, never more.
		inner, err := parseJSON([]byte(s), "the JSON string inside the arguments: ")
		if err != nil {
			return nil, nil, err
		}
		if _, ok := inner.(map[string]any); ok {
			notes = append(notes, "arguments were a JSON string holding an object; decoded it, but send the object itself")
			v = inner
		}
	}
	switch v := v.(type) {
	case nil:
		return map[string]any{}, notes, nil
	case map[string]any:
		return v, notes, nil
	default:
		return nil, nil, argErrorf("arguments must be a JSON object, got %s; send one object whose fields match the schema, e.g. {\"field\": value}", jsonKind(v))
	}
}

// parseJSON parses exactly one JSON value (or nothing, which is null) with
// an iterative token walk, so that depth, duplicates and offsets are under
// our control. where prefixes error messages.
func parseJSON(data []byte, where string) (any, error) {
	if off := invalidUTF8(data); off >= 0 {
		return nil, argErrorf("%sarguments are not valid UTF-8 at byte %d; send text only, escaping binary data", where, off)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()

	type frame struct {
		obj    map[string]any
		arr    []any
		isObj  bool
		key    string // current key of an object frame
		hasKey bool
	}
	var (
		stack []*frame
		root  any
		done  bool
	)
	path := func() string {
		var b strings.Builder
		b.WriteString("arguments")
		for _, f := range stack {
			if f.isObj {
				if f.hasKey {
					b.WriteString("." + fieldName(f.key))
				}
			} else {
				fmt.Fprintf(&b, "[%d]", len(f.arr))
			}
		}
		return b.String()
	}
	attach := func(v any) {
		if len(stack) == 0 {
			root, done = v, true
			return
		}
		f := stack[len(stack)-1]
		if f.isObj {
			f.obj[f.key] = v
			f.hasKey = false
		} else {
			f.arr = append(f.arr, v)
		}
	}
	syntax := func(err error) error {
		var se *json.SyntaxError
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return argErrorf("%sarguments are not valid JSON: unexpected end of input at byte %d; send one complete JSON object matching the schema", where, len(data))
		case errors.As(err, &se):
			return argErrorf("%sarguments are not valid JSON: %s at byte %d; send one JSON object matching the schema", where, se.Error(), se.Offset)
		default:
			return argErrorf("%sarguments are not valid JSON: %v; send one JSON object matching the schema", where, err)
		}
	}

	for values := 0; !done; values++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		if values > 2*maxArgValues { // keys and closing delimiters are tokens too
			return nil, argErrorf("%sarguments hold too many values (more than %d) at byte %d; send fewer, larger values", where, maxArgValues, dec.InputOffset())
		}
		// An object frame waiting for a key gets it now; Token guarantees
		// that it is a string.
		if len(stack) > 0 {
			if f := stack[len(stack)-1]; f.isObj && !f.hasKey {
				if d, ok := tok.(json.Delim); ok && d == '}' {
					stack = stack[:len(stack)-1]
					attach(f.obj)
					continue
				}
				k, _ := tok.(string)
				if strings.IndexByte(k, 0) >= 0 {
					return nil, argErrorf("%sNUL character in a field name in %s (near byte %d); remove it", where, path(), dec.InputOffset())
				}
				if _, dup := f.obj[k]; dup {
					return nil, argErrorf("%sduplicate key %s in %s (near byte %d); send each field once", where, quote(k), path(), dec.InputOffset())
				}
				f.key, f.hasKey = k, true
				continue
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if len(stack) >= maxArgDepth {
					return nil, argErrorf("%sarguments nested too deeply (more than %d levels) at byte %d; send a flatter object", where, maxArgDepth, dec.InputOffset())
				}
				if t == '{' {
					stack = append(stack, &frame{isObj: true, obj: map[string]any{}})
				} else {
					stack = append(stack, &frame{arr: []any{}})
				}
			default: // ']' ('}' was handled above)
				f := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				attach(f.arr)
			}
		case string:
			if strings.IndexByte(t, 0) >= 0 {
				return nil, argErrorf("%sNUL character in the string at %s (near byte %d); remove it", where, path(), dec.InputOffset())
			}
			attach(t)
		default: // json.Number, bool, nil
			attach(t)
		}
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return nil, argErrorf("%sarguments contain trailing data after the first JSON value at byte %d; send exactly one JSON object, and one tool call per action", where, end)
	}
	return root, nil
}

// invalidUTF8 returns the offset of the first byte that is not valid
// UTF-8, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if isIntegerLiteral(string(v)) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// describe shows a value briefly, for "got ..." in error texts.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return quote(v)
	case json.Number:
		return text.Clip(string(v), 40)
	case bool:
		return strconv.FormatBool(v)
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// plainName matches field names shown as they are; others are quoted, so
// that a hostile key cannot inject lines into a result.
var plainName = lazyRegexp(`^[A-Za-z0-9_\-]{1,64}$`)

// fieldName shows a field name in error text.
func fieldName(k string) string {
	if plainName().MatchString(k) {
		return k
	}
	return quote(k)
}

// isIntegerLiteral reports whether a JSON number has no fraction or
// exponent.
func isIntegerLiteral(s string) bool {
	return s != "" && !strings.ContainsAny(s, ".eE")
}

// quote quotes s for error text, clipped so that a huge or hostile value
// cannot flood the model's context.
func quote(s string) string { return strconv.Quote(text.Clip(s, 64)) }
