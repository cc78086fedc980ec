package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellVars is what one command line assigns to its variables, across the
// scripts nested in it (an exported value reaches `bash -c`).
type shellVars struct {
	values  map[string][]varValue
	assoc   map[string]bool // declared -A: subscripts are strings, not arithmetic
	uses    []arithUse
	pending int // arithmetic re-reads in progress, bounded by MaxNesting
}

// varValue is one value assigned to a variable: a literal text, or unknown.
type varValue struct {
	text    string
	unknown string // why the value cannot be known; "" for a literal
	cwd     string
}

// arithUse is a variable whose value is evaluated as arithmetic. array is
// the array whose subscript names it, if any.
type arithUse struct {
	name, array string
}

func newShellVars() *shellVars {
	return &shellVars{values: map[string][]varValue{}, assoc: map[string]bool{}}
}

// unknownVars are set by the shell from data the command line does not
// control or spell out.
var unknownVars = &lazy[map[string]string]{build: func() map[string]string {
	return map[string]string{
		"REPLY": "is read from input", "OPTARG": "comes from arguments", "BASH_REMATCH": "holds matched text",
		"MAPFILE": "is read from input", "_": "is the last argument of the previous command", "BASH_COMMAND": "is command text",
		"COPROC": "is set by coproc", "READLINE_LINE": "is input", "BASH_ARGV": "holds arguments", "FUNCNAME": "holds function names",
		"BASH_SOURCE": "holds file names", "PWD": "holds a directory name", "OLDPWD": "holds a directory name",
		"@": "holds the positional parameters", "*": "holds the positional parameters",
	}
}}

// setVar records a value assigned to name.
func (c *checker) setVar(name string, v varValue) {
	v.cwd = c.cwd
	c.vars.values[name] = append(c.vars.values[name], v)
}

// useVar records that name's value is evaluated as arithmetic.
func (c *checker) useVar(name, array string) {
	c.vars.uses = append(c.vars.uses, arithUse{name: name, array: array})
}

// wordValue is what an assignment stores, for arithmetic: literal text with
// simple expansions kept as ${name} (re-read later), numbers for arithmetic
// expansions, or unknown.
// globs says whether unquoted glob characters expand (array elements, loop
// words) or stay literal (scalar assignments).
func wordValue(w *syntax.Word, globs bool) varValue {
	if w == nil {
		return varValue{}
	}
	var b strings.Builder
	if why := valueParts(w.Parts, false, globs, &b); why != "" {
		return varValue{unknown: why}
	}
	return varValue{text: b.String()}
}

func valueParts(parts []syntax.WordPart, quoted, globs bool, b *strings.Builder) string {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			s, glob := unescapeLit(p.Value, quoted)
			if glob && globs {
				return "holds file names from a glob"
			}
			b.WriteString(s)
		case *syntax.SglQuoted:
			b.WriteString(sglText(p))
		case *syntax.DblQuoted:
			if why := valueParts(p.Parts, true, globs, b); why != "" {
				return why
			}
		case *syntax.ArithmExp:
			b.WriteString("0")
		case *syntax.ParamExp:
			switch {
			case p.Length:
				b.WriteString("0")
			case p.Param != nil && !p.Excl && p.Names == 0 && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Exp == nil:
				b.WriteString("${" + p.Param.Value + "}")
			default:
				return "comes from an expansion"
			}
		default:
			return "comes from a command or an expansion"
		}
	}
	return ""
}
