package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Where a command line gives variables their values (see arith.go for why
// it matters).

// assignVar records NAME=value, NAME[i]=value and NAME=(...) and checks
// the subscripts, which are arithmetic.
func (c *checker) assignVar(a *syntax.Assign) {
	name := a.Name.Value
	c.arith(a.Index, name)
	if a.Array != nil {
		c.arrayExpr(name, a.Array)
		return
	}
	v := wordValue(a.Value, false)
	c.setVar(name, v)
	if a.Append && v.unknown == "" && !isNumber(v.text) {
		// Appended pieces may form a subscript only together.
		c.setVar(name, varValue{unknown: "is built by appending to it"})
	}
}

// arrayExpr records the elements of NAME=(...); elements are subject to
// globbing, unlike scalar assignments.
func (c *checker) arrayExpr(name string, ae *syntax.ArrayExpr) {
	for _, e := range ae.Elems {
		c.arith(e.Index, name)
		if e.Value != nil {
			c.visit(e.Value)
			c.setVar(name, wordValue(e.Value, true))
		}
	}
}

func isNumber(s string) bool {
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, "+-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// forClause records the loop variable: literal words are known values,
// globs and expansions (file names, command output) are not.
func (c *checker) forClause(x *syntax.ForClause) {
	switch l := x.Loop.(type) {
	case *syntax.WordIter:
		name := l.Name.Value
		switch {
		case x.Select:
			c.setVar(name, varValue{unknown: "is chosen from input"})
		case !l.InPos.IsValid():
			c.setVar(name, varValue{unknown: "holds the positional parameters"})
		}
		for _, w := range l.Items {
			c.visit(w)
			for _, f := range fields(w) {
				if f.static && !f.glob {
					c.setVar(name, varValue{text: f.text})
				} else {
					c.setVar(name, varValue{unknown: "comes from a loop over file names or expansions"})
				}
			}
		}
	case *syntax.CStyleLoop:
		c.arith(l.Init, "")
		c.arith(l.Cond, "")
		c.arith(l.Post, "")
	}
	c.stmts(x.Do)
}

// decl checks declare, local, typeset, export and readonly: -i makes every
// value arithmetic, -A makes subscripts strings, and a quoted argument is
// still an assignment whose subscript is evaluated.
func (c *checker) decl(x *syntax.DeclClause) {
	var extra []Part
	args := []string{x.Variant.Value}
	integer, assoc, nameref := false, false, false
	for _, a := range x.Args {
		c.visit(a.Value)
		if a.Naked && a.Name == nil {
			if a.Value == nil {
				continue
			}
			opt := evalParts(a.Value.Parts, false)
			args = append(args, opt.text)
			switch {
			case !opt.static:
				extra = append(extra, Part{Text: opt.text, Verdict: Ask, Structural: true,
					Reason: x.Variant.Value + " argument is not a literal: it may assign an array element whose subscript runs commands"})
			case strings.HasPrefix(opt.text, "-") || strings.HasPrefix(opt.text, "+"):
				on := opt.text[0] == '-'
				if strings.ContainsAny(opt.text, "nf") {
					extra = append(extra, Part{Text: opt.text, Verdict: Ask, Structural: true,
						Reason: x.Variant.Value + " " + opt.text + " aliases a variable or changes a function"})
				}
				if strings.Contains(opt.text, "i") {
					integer = on
				}
				if strings.Contains(opt.text, "A") {
					assoc = on
				}
				if strings.Contains(opt.text, "n") {
					nameref = on
				}
			default:
				// `declare 'a[$(…)]=1'`: the shell parses the assignment
				// at run time.
				n, v, eq := strings.Cut(opt.text, "=")
				if strings.Contains(n, "[") {
					c.arithText(n, "")
				}
				base, _, _ := strings.Cut(n, "[")
				if eq {
					c.setVar(base, varValue{text: v})
					extra = append(extra, c.assign(base, word{text: v, static: true})...)
				}
				if integer {
					c.useVar(base, "")
				}
			}
			continue
		}
		if a.Name == nil {
			continue
		}
		name := a.Name.Value
		if assoc {
			c.vars.assoc[name] = true
		}
		if integer {
			c.useVar(name, "")
		}
		if a.Naked {
			c.arith(a.Index, name)
			args = append(args, name)
			if why := dangerousVar(name); why != "" {
				extra = append(extra, Part{Text: name, Verdict: Ask, Structural: true, Reason: "changes " + name + ": " + why})
			}
			continue
		}
		c.assignVar(a)
		val := word{static: true}
		if a.Value != nil {
			val = evalParts(a.Value.Parts, false)
		}
		args = append(args, name+"="+val.text)
		extra = append(extra, c.assign(name, val)...)
		if nameref && val.static && strings.Contains(val.text, "[") {
			// declare -n r='a[$(…)]': every use of r evaluates the
			// subscript.
			c.arithText(val.text, "")
		}
	}
	text := strings.Join(args, " ")
	c.d.add(strictest(c.ruled(text, text, nil, false, false), extra))
}

// builtinVars checks builtins that assign to variables named by their
// arguments (read, mapfile, printf -v, getopts, wait -p, unset, test -v,
// let): a name with a subscript evaluates it, and what they store is not
// known.
func (c *checker) builtinVars(base string, args []word, pl *plan) {
	unknown := func(w word, why string) {
		c.arithArg(w, true, pl)
		name, _, _ := strings.Cut(w.text, "[")
		c.setVar(name, varValue{unknown: why})
	}
	switch base {
	case "test", "[":
		for i := 0; i+1 < len(args); i++ {
			if args[i].text == "-v" {
				c.arithArg(args[i+1], true, pl)
			}
		}
	case "printf", "wait":
		// printf -v NAME, wait -p NAME; bash's getopt also takes the
		// name attached (-vNAME) and wait's in a bundle (-np NAME,
		// -fnpNAME), which evaluate a subscript just the same.
		letter := byte('v')
		if base == "wait" {
			letter = 'p'
		}
		for i := 0; i < len(args); i++ {
			t := args[i].text
			if len(t) < 2 || t[0] != '-' || t == "--" {
				continue
			}
			k := strings.IndexByte(t[1:], letter)
			if k < 0 {
				continue
			}
			v := word{text: t[2+k:], static: args[i].static}
			if v.text == "" {
				if i+1 >= len(args) {
					break
				}
				i++
				v = args[i]
			}
			unknown(v, "is set by "+base)
		}
	case "read", "mapfile", "readarray":
		valued := "dinNptuaCc"
		if base != "read" {
			valued = "dnOsuCc"
		}
		names := 0
		for i := 0; i < len(args); i++ {
			t := args[i].text
			if len(t) > 1 && t[0] == '-' && t != "--" {
				k := strings.IndexAny(t[1:], valued)
				if k < 0 {
					continue
				}
				letter := t[1+k]
				v := word{text: t[2+k:], static: args[i].static}
				if v.text == "" && i+1 < len(args) {
					i++
					v = args[i]
				}
				switch {
				case letter == 'a' && base == "read":
					unknown(v, "is read from input")
					names++
				case letter == 'C':
					pl.ask(t, base+" -C runs a callback command for every line")
					pl.inner = append(pl.inner, func() { c.nestedProgram(v, base+" -C") })
				}
				continue
			}
			unknown(args[i], "is read from input")
			names++
		}
		if names == 0 && base != "read" {
			c.setVar("MAPFILE", varValue{unknown: "is read from input"})
		}
	case "getopts":
		if len(args) > 1 {
			unknown(args[1], "comes from arguments")
		}
	case "unset":
		for _, a := range args {
			c.arithArg(a, true, pl)
		}
	case "let":
		for _, a := range args {
			c.arithArg(a, false, pl)
		}
	}
}
