package textcalls

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// parsePythonList reads Llama 3.2's pythonic calls, the whole reply being
// [get_weather(city="Paris"), get_time(tz="UTC")] (the llama-models
// llama3_2 prompt format; meta-llama/llama-models#169). A reply that
// starts like such a list ("[NAME(") but is cut short, or is a whole list
// of calls with text after it, is broken; the calls read so far say
// which tools it names (an unknown one makes it an answer, rule 4).
func parsePythonList(text string) (envelope, bool) {
	s := strings.TrimSpace(text)
	if !strings.HasPrefix(s, "[") {
		return envelope{}, false
	}
	var whole error
	if strings.HasSuffix(s, "]") {
		calls, err := parsePyCalls(s[1:len(s)-1], ",")
		if err == nil && len(calls) > 0 {
			return envelope{calls: calls}, true
		}
		whole = err
	}
	p := &pyParser{s: s[1:]}
	var env envelope
	for {
		p.skip(",")
		switch {
		case p.done():
			env.broken = "the Python call list is not closed by ']'; is it cut short?"
			return env, true
		case p.s[p.i] == ']':
			if whole != nil {
				env.broken = "in the Python call list, " + whole.Error()
			} else {
				env.broken = fmt.Sprintf("the reply starts with a Python call list but has text after it (%q); send the calls alone, or use the tool-calling format", clipText(strings.TrimSpace(p.s[p.i+1:])))
			}
			return env, true
		}
		at := p.i
		name := p.ident()
		p.skip("")
		if name == "" || p.done() || p.s[p.i] != '(' {
			if len(env.calls) == 0 {
				return envelope{}, false // a list that is not calls is an answer
			}
		}
		p.i = at
		c, err := p.call()
		if err != nil {
			if p.done() || whole != nil {
				// Cut short, or a whole list that is not valid calls.
				env.broken = "in the Python call list, " + err.Error()
				env.calls = append(env.calls, rawCall{name: name})
				return env, true
			}
			return envelope{}, false
		}
		env.calls = append(env.calls, c)
	}
}

// parseToolCode reads Gemma's ```tool_code block of Python calls (Google's
// Gemma function-calling guide), alone or after a sentence of intent.
func parseToolCode(text string) (envelope, bool) {
	const open = "```tool_code"
	start := strings.Index(text, open)
	if start < 0 {
		return envelope{}, false
	}
	env := envelope{prose: text[:start]}
	body := text[start+len(open):]
	end := strings.Index(body, "```")
	if end < 0 {
		env.broken = "the ```tool_code block is not closed; is the call cut short?"
		return env, true
	}
	env.prose += body[end+3:]
	calls, err := parsePyCalls(body[:end], "\n;")
	if err != nil {
		env.broken = "in the ```tool_code block, " + err.Error()
		return env, true
	}
	// Gemma sometimes wraps the call in print(...).
	for i, c := range calls {
		if c.name == "print" && c.inner != nil {
			calls[i] = *c.inner
		}
	}
	env.calls = calls
	return env, true
}

// parsePyCalls reads calls NAME(key=value, ...) separated by any of seps
// (and whitespace). Values are Python literals: strings, numbers,
// True/False/None, lists, tuples and dicts.
func parsePyCalls(s, seps string) ([]rawCall, error) {
	p := &pyParser{s: s}
	var out []rawCall
	for {
		p.skip(seps)
		if p.done() {
			if len(out) == 0 {
				return nil, errors.New("no call found")
			}
			return out, nil
		}
		c, err := p.call()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) done() bool { return p.i >= len(p.s) }

func (p *pyParser) skip(extra string) {
	for p.i < len(p.s) && (strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 || strings.IndexByte(extra, p.s[p.i]) >= 0) {
		p.i++
	}
}

func (p *pyParser) ident() string {
	j := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' && p.i > j {
			p.i++
			continue
		}
		break
	}
	return p.s[j:p.i]
}

func (p *pyParser) errorf(format string, a ...any) error {
	return fmt.Errorf("the Python call syntax breaks at byte %d (%s)", p.i, fmt.Sprintf(format, a...))
}

// call reads NAME(args). A positional argument is allowed only for
// print(call(...)), which Gemma writes.
func (p *pyParser) call() (rawCall, error) {
	name := p.ident()
	if name == "" {
		return rawCall{}, p.errorf("want a function name")
	}
	p.skip("")
	if p.done() || p.s[p.i] != '(' {
		return rawCall{}, p.errorf("want ( after %s", name)
	}
	p.i++
	c := rawCall{name: name, args: map[string]any{}}
	for {
		p.skip("")
		if p.done() {
			return rawCall{}, p.errorf("the call to %s is not closed; is it cut short?", name)
		}
		if p.s[p.i] == ')' {
			p.i++
			return c, nil
		}
		save := p.i
		key := p.ident()
		p.skip("")
		if key != "" && !p.done() && p.s[p.i] == '(' && name == "print" {
			p.i = save
			inner, err := p.call()
			if err != nil {
				return rawCall{}, err
			}
			c.inner = &inner
		} else {
			if key == "" || p.done() || p.s[p.i] != '=' {
				return rawCall{}, p.errorf("arguments must be written name=value")
			}
			p.i++
			v, err := p.value()
			if err != nil {
				return rawCall{}, err
			}
			c.args[key] = v
		}
		p.skip("")
		if !p.done() && p.s[p.i] == ',' {
			p.i++
		}
	}
}

func (p *pyParser) value() (any, error) {
	p.skip("")
	if p.done() {
		return nil, p.errorf("a value is missing; is the call cut short?")
	}
	switch c := p.s[p.i]; {
	case c == '"' || c == '\'':
		return p.str()
	case c == '[' || c == '(':
		closer := byte(']')
		if c == '(' {
			closer = ')'
		}
		p.i++
		list := []any{}
		for {
			p.skip("")
			if p.done() {
				return nil, p.errorf("a list is not closed")
			}
			if p.s[p.i] == closer {
				p.i++
				return list, nil
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			p.skip("")
			if !p.done() && p.s[p.i] == ',' {
				p.i++
			}
		}
	case c == '{':
		p.i++
		m := map[string]any{}
		for {
			p.skip("")
			if p.done() {
				return nil, p.errorf("a dict is not closed")
			}
			if p.s[p.i] == '}' {
				p.i++
				return m, nil
			}
			k, err := p.value()
			if err != nil {
				return nil, err
			}
			ks, ok := k.(string)
			if !ok {
				return nil, p.errorf("dict keys must be strings")
			}
			p.skip("")
			if p.done() || p.s[p.i] != ':' {
				return nil, p.errorf("want : in a dict")
			}
			p.i++
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			m[ks] = v
			p.skip("")
			if !p.done() && p.s[p.i] == ',' {
				p.i++
			}
		}
	}
	word := p.ident()
	switch word {
	case "True", "true":
		return true, nil
	case "False", "false":
		return false, nil
	case "None", "null":
		return nil, nil
	}
	j := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
		p.i++
	}
	num := word + p.s[j:p.i]
	if n, err := strconv.ParseInt(num, 10, 64); err == nil {
		return n, nil
	}
	if f, err := strconv.ParseFloat(num, 64); err == nil {
		return f, nil
	}
	return nil, p.errorf("%q is not a Python literal", num)
}

// str reads a quoted Python string, with its common escapes.
func (p *pyParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			p.escape(&b)
		default:
			b.WriteByte(c)
		}
		p.i++
	}
	return "", p.errorf("a string is not closed; is the call cut short?")
}

// pyEscapes are Python's one-letter string escapes.
var pyEscapes = map[byte]string{'n': "\n", 't': "\t", 'r': "\r", 'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '0': "\x00", '\\': "\\", '\'': "'", '"': "\""}

// escape writes the escape whose letter is at p.i (after the backslash)
// as Python reads it: \xHH, \uHHHH and \UHHHHHHHH are code points, a
// backslash before a newline continues the line, and an escape Python
// does not know keeps its backslash ("\d" in a regex stays "\d").
func (p *pyParser) escape(b *strings.Builder) {
	e := p.s[p.i]
	if s, ok := pyEscapes[e]; ok {
		b.WriteString(s)
		return
	}
	switch e {
	case '\n':
		return
	case 'x', 'u', 'U':
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
		if p.i+n < len(p.s) {
			if r, err := strconv.ParseUint(p.s[p.i+1:p.i+1+n], 16, 32); err == nil {
				p.i += n
				if utf16.IsSurrogate(rune(r)) && strings.HasPrefix(p.s[p.i+1:], "\\u") && p.i+7 <= len(p.s) {
					// A surrogate pair written as two \u escapes.
					if lo, err := strconv.ParseUint(p.s[p.i+3:p.i+7], 16, 32); err == nil {
						if c := utf16.DecodeRune(rune(r), rune(lo)); c != utf8.RuneError {
							p.i += 6
							r = uint64(c)
						}
					}
				}
				b.WriteRune(rune(r))
				return
			}
		}
	}
	b.WriteByte('\\')
	b.WriteByte(e)
}
