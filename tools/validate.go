package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/internal/text"
	"github.com/google/jsonschema-go/jsonschema"
)

// maxReportedProblems caps how many problems one error result lists.
const maxReportedProblems = 8

// plainInt is the only string form coerced to an integer (M08): base 10,
// optional minus, no leading zeros, no spaces, at most 18 digits.
var plainInt = lazyRegexp(`^-?(0|[1-9][0-9]{0,17})$`)

// checker validates a decoded arguments object against a tool's schema
// and rewrites problems in words a model can act on. It walks the schema
// keywords that Define generates (type, properties, required,
// additionalProperties, items, enum, minimum/maximum, length and item
// counts); the library validator runs afterwards as a backstop for any
// other keyword.
//
// While walking it also
//   - removes unknown fields (where the schema forbids them) and records
//     them, so that the model is told and nothing downstream sees them
//     (M10, M11);
//   - coerces plain base-10 integer strings where an integer is expected,
//     and says so (M08).
type checker struct {
	tool    string
	ignored []string // paths of removed unknown fields
	notes   []string // coercions
	errs    []string
}

func (c *checker) fail(format string, a ...any) {
	if len(c.errs) <= maxReportedProblems {
		c.errs = append(c.errs, fmt.Sprintf(format, a...))
	}
}

// field names the value at path for messages: "read_file.limit".
func (c *checker) field(path string) string {
	if path == "" {
		return c.tool + " arguments"
	}
	return c.tool + "." + path
}

// value checks v against s and returns v, possibly cleaned or coerced.
func (c *checker) value(path string, v any, s *jsonschema.Schema) any {
	if s == nil {
		return v
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) > 0 {
		kind := jsonKind(v)
		ok := slices.Contains(types, kind) || kind == "integer" && slices.Contains(types, "number")
		if !ok {
			if str, isStr := v.(string); isStr && slices.Contains(types, "integer") && plainInt().MatchString(str) {
				c.notes = append(c.notes, fmt.Sprintf("%s was the string %s; used the integer %s (send numbers without quotes)", c.field(path), quote(str), str))
				v, kind, ok = json.Number(str), "integer", true
			}
		}
		if !ok {
			c.fail("%s must be %s, got %s", c.field(path), expected(types, s), describe(v))
			return v
		}
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return sameJSON(e, v) }) {
		opts := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			b, _ := json.Marshal(e)
			opts[i] = string(b)
		}
		c.fail("%s must be one of %s, got %s", c.field(path), strings.Join(opts, ", "), describe(v))
		return v
	}
	switch x := v.(type) {
	case json.Number:
		c.number(path, x, types, s)
	case string:
		n := utf8.RuneCountInString(x)
		if s.MinLength != nil && n < *s.MinLength {
			c.fail("%s must be at least %d characters long, got %d", c.field(path), *s.MinLength, n)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			c.fail("%s must be at most %d characters long, got %d", c.field(path), *s.MaxLength, n)
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			c.fail("%s must have at least %d items, got %d", c.field(path), *s.MinItems, len(x))
		}
		if s.MaxItems != nil && len(x) > *s.MaxItems {
			c.fail("%s must have at most %d items, got %d", c.field(path), *s.MaxItems, len(x))
		}
		for i := range x {
			x[i] = c.value(fmt.Sprintf("%s[%d]", path, i), x[i], s.Items)
		}
	case map[string]any:
		c.object(path, x, s)
	}
	return v
}

func (c *checker) number(path string, n json.Number, types []string, s *jsonschema.Schema) {
	var f float64
	if isIntegerLiteral(string(n)) && (slices.Contains(types, "integer") || len(types) == 0) {
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(string(n), 10, 64)
			if uerr != nil {
				c.fail("%s must be %s, got %s, which is too large", c.field(path), expected(types, s), describe(n))
				return
			}
			f = float64(u)
		} else {
			f = float64(i)
		}
	} else {
		var err error
		f, err = strconv.ParseFloat(string(n), 64)
		if err != nil || math.IsInf(f, 0) {
			c.fail("%s must be a finite number, got %s", c.field(path), describe(n))
			return
		}
	}
	if s.Minimum != nil && f < *s.Minimum || s.Maximum != nil && f > *s.Maximum ||
		s.ExclusiveMinimum != nil && f <= *s.ExclusiveMinimum || s.ExclusiveMaximum != nil && f >= *s.ExclusiveMaximum {
		c.fail("%s must be %s, got %s", c.field(path), expected(types, s), describe(n))
	}
}

func (c *checker) object(path string, m map[string]any, s *jsonschema.Schema) {
	prefix := path
	if prefix != "" {
		prefix += "."
	}
	for _, k := range sortedKeys(m) {
		ps, known := s.Properties[k]
		name := prefix + fieldName(k)
		switch {
		case known:
			m[k] = c.value(name, m[k], ps)
		case isFalseSchema(s.AdditionalProperties):
			c.ignored = append(c.ignored, name)
			delete(m, k)
		default:
			m[k] = c.value(name, m[k], s.AdditionalProperties)
		}
	}
	var missing []string
	for _, r := range s.Required {
		if _, ok := m[r]; !ok {
			missing = append(missing, strconv.Quote(r))
		}
	}
	where := c.tool
	if path != "" {
		where = c.field(path)
	}
	switch len(missing) {
	case 0:
	case 1:
		c.fail("%s missing required field %s", where, missing[0])
	default:
		c.fail("%s missing required fields %s", where, strings.Join(missing, ", "))
	}
}

// expected describes what a schema accepts: "an integer in [1, 100000]".
func expected(types []string, s *jsonschema.Schema) string {
	parts := make([]string, 0, len(types))
	for _, t := range types {
		switch t {
		case "null":
			continue // said last
		case "integer", "number":
			parts = append(parts, article(t)+numRange(s))
		default:
			parts = append(parts, article(t))
		}
	}
	if slices.Contains(types, "null") {
		parts = append(parts, "null")
	}
	return strings.Join(parts, " or ")
}

func article(t string) string {
	switch t {
	case "integer", "array", "object":
		return "an " + t
	}
	return "a " + t
}

func numRange(s *jsonschema.Schema) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch {
	case s.Minimum != nil && s.Maximum != nil:
		return fmt.Sprintf(" in [%s, %s]", f(*s.Minimum), f(*s.Maximum))
	case s.Minimum != nil:
		return " >= " + f(*s.Minimum)
	case s.Maximum != nil:
		return " <= " + f(*s.Maximum)
	case s.ExclusiveMinimum != nil:
		return " > " + f(*s.ExclusiveMinimum)
	case s.ExclusiveMaximum != nil:
		return " < " + f(*s.ExclusiveMaximum)
	}
	return ""
}

// isFalseSchema reports whether s is the schema that accepts nothing,
// which jsonschema.For puts in additionalProperties of every struct.
func isFalseSchema(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

// sameJSON compares an enum member with a decoded value by their JSON.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// bind validates obj for tool t and decodes it, once, into a new *P. It
// returns the params (as any holding *P), notes for the model (ignored
// fields, coercions) and, on failure, an *argError listing the problems.
func bind(t *Tool, obj map[string]any, notes []string) (params any, outNotes []string, err error) {
	c := &checker{tool: t.name}
	c.value("", obj, t.schema())
	if len(c.ignored) > 0 {
		names := make([]string, 0, len(c.ignored))
		for i, n := range c.ignored {
			if i == 10 {
				names = append(names, fmt.Sprintf("and %d more", len(c.ignored)-i))
				break
			}
			names = append(names, text.Clip(n, 64))
		}
		notes = append(notes, "ignored unknown field(s): "+strings.Join(names, ", "))
	}
	notes = append(notes, c.notes...)
	if len(c.errs) > 0 {
		msg := strings.Join(c.errs, "; ")
		if len(c.errs) > maxReportedProblems {
			msg = strings.Join(c.errs[:maxReportedProblems], "; ") + "; and more"
		}
		return nil, notes, argErrorf("%s. Fix the arguments to match the %s schema and call it again", msg, t.name)
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, notes, argErrorf("%s arguments could not be re-encoded: %v", t.name, err)
	}
	// Backstop: the library validator sees the cleaned value.
	var generic any
	if err := json.Unmarshal(data, &generic); err != nil {
		return nil, notes, argErrorf("%s arguments could not be re-decoded: %v", t.name, err)
	}
	if err := t.resolved().Validate(generic); err != nil {
		return nil, notes, argErrorf("%s arguments do not match the schema (%s). Fix them and call %s again", t.name, text.Clip(err.Error(), 300), t.name)
	}
	p := reflect.New(t.paramsType).Interface()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, notes, argErrorf("%s arguments do not fit the parameter types (%s). Fix them and call %s again", t.name, text.Clip(err.Error(), 300), t.name)
	}
	if v, ok := p.(Validator); ok {
		if err := v.Validate(); err != nil {
			return nil, notes, argErrorf("%s arguments are invalid: %s", t.name, err.Error())
		}
	}
	return p, notes, nil
}
