package permission

import (
	"reflect"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates arithmetic in $(( )), (( )), let, for (( )), ${x:off:len},
// array subscripts, the operands of [[ -eq ]] and its kin, names given to
// test -v, printf -v, read and friends, and every assignment to a variable
// declared -i. Evaluating an array subscript expands it, command
// substitution included, and text inside single quotes is no protection
// there: `test -v 'a[$(rm -rf x)]'` runs rm. A variable named in such a
// context has its value evaluated the same way, recursively, so a value read
// from a file or a file name can run commands too.
//
// The checker therefore re-reads every piece of text that reaches an
// arithmetic context with the expansion rules of an unquoted here-document
// (which is how bash treats it: $( ), backquotes and ${ } are live, quotes
// are not), checks each command substitution it finds like any other
// command, and records each variable the text names. When the whole command
// line has been walked, each recorded variable is resolved against what the
// command line assigned to it: literal values are evaluated the same way,
// values it cannot know (read from input, a command's output, file names,
// positional parameters) make the command at least ask.

// arithUnknown adds the ask for text reaching arithmetic that cannot be
// proved inert.
func (c *checker) arithUnknown(text, why string) {
	c.d.add(Part{Text: text, Verdict: Ask, Structural: true, Reason: "arithmetic evaluates " + why + ", which may run commands (a[$(…)])"})
}

// arith walks an arithmetic expression (or a word in an arithmetic
// context): names are recorded, command substitutions checked, and quoted
// text re-read, since quotes do not stop expansion there.
func (c *checker) arith(n syntax.Node, array string) {
	if n == nil {
		return
	}
	if v := reflect.ValueOf(n); v.Kind() == reflect.Pointer && v.IsNil() {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Lit:
			if strings.Contains(x.Value, `\`) {
				// let's arguments are words: bash removes the escapes
				// before it evaluates them, so let x=a\[\$\(cmd\)\] runs
				// cmd. Re-read the value as the shell leaves it.
				s, _ := unescapeLit(x.Value, false)
				c.arithText(s, array)
				return true
			}
			c.arithNames(x.Value, array)
		case *syntax.SglQuoted:
			c.arithText(x.Value, array)
			return false
		case *syntax.CmdSubst:
			c.sub(x.Stmts)
			c.arithUnknown("$(…)", "the output of a command")
			return false
		case *syntax.ProcSubst:
			c.sub(x.Stmts)
			c.arithUnknown(x.Op.String()+"…)", "a process substitution's file name")
			return false
		case *syntax.ParamExp:
			c.paramArith(x, array)
			return false
		case *syntax.ExtGlob:
			c.arithText(x.Pattern.Value, array)
			return false
		}
		return true
	})
}

// paramArith handles ${...} whose value lands in arithmetic: the variable's
// value is evaluated, and so are its subscript and slice bounds.
func (c *checker) paramArith(x *syntax.ParamExp, array string) {
	name := ""
	if x.Param != nil {
		name = x.Param.Value
	}
	switch {
	case x.Names != 0 || x.NestedParam != nil:
		c.arithUnknown(source(x), "names made by an expansion")
	case x.Length:
		// ${#x} is a number.
	case name != "":
		c.useVar(name, array)
	}
	c.paramParts(x, true)
}

// paramParts checks the subscript, slice bounds and operand words of a
// parameter expansion; inArith says whether the operand words' values land
// in arithmetic too.
func (c *checker) paramParts(x *syntax.ParamExp, inArith bool) {
	name := ""
	if x.Param != nil {
		name = x.Param.Value
	}
	c.arith(x.Index, name)
	if x.Slice != nil {
		c.arith(x.Slice.Offset, "")
		c.arith(x.Slice.Length, "")
	}
	var words []*syntax.Word
	if x.Exp != nil {
		words = append(words, x.Exp.Word)
	}
	if x.Repl != nil {
		words = append(words, x.Repl.Orig, x.Repl.With)
	}
	for _, w := range words {
		if inArith {
			c.arith(w, "")
		} else {
			c.visit(w)
		}
	}
	if x.Excl && name != "" && x.Names == 0 {
		c.useVar(name, "") // ${!x}: x's value is a name, subscript and all
	}
	if x.Exp != nil && x.Exp.Op == syntax.OtherParamOps && x.Exp.Word != nil && x.Exp.Word.Lit() == "P" && name != "" {
		// ${x@P} expands x's value as a prompt: $( ), backquotes and ${ }
		// in it run, as they do in arithmetic. The value is re-read the
		// same way, and one the checker cannot know is at least ask.
		c.useVar(name, "")
	}
}

// arithNames records the variable names in literal arithmetic text.
func (c *checker) arithNames(s, array string) {
	for i := 0; i < len(s); {
		b := s[i]
		switch {
		case b >= '0' && b <= '9':
			// A number, with base or hex digits: 16#ff, 0x1F.
			for i < len(s) && (isNameByte(s[i]) || s[i] == '#' || s[i] == '@') {
				i++
			}
		case isNameByte(b):
			j := i
			for j < len(s) && isNameByte(s[j]) {
				j++
			}
			c.useVar(s[i:j], array)
			i = j
		default:
			i++
		}
	}
}

func isNameByte(b byte) bool {
	return b == '_' || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
}

// arithDelim ends the here-document arithText wraps text in.
const arithDelim = "AGENT_LSP_ARITH_END"

// arithText checks text that bash evaluates as arithmetic after expanding
// it the way it expands an unquoted here-document.
func (c *checker) arithText(s, array string) {
	if !strings.ContainsAny(s, "$`") {
		c.arithNames(s, array)
		return
	}
	if c.vars.pending >= MaxNesting {
		c.arithUnknown(s, "text nested too deeply to check")
		return
	}
	if strings.Contains(s, arithDelim) {
		c.arithUnknown(s, "text that cannot be re-read")
		return
	}
	f, err := parseOK(": <<" + arithDelim + "\n" + s + "\n" + arithDelim + "\n")
	if err != nil || len(f.Stmts) != 1 || len(f.Stmts[0].Redirs) != 1 || f.Stmts[0].Redirs[0].Hdoc == nil {
		c.arithUnknown(s, "text that cannot be parsed")
		return
	}
	c.vars.pending++
	c.arith(f.Stmts[0].Redirs[0].Hdoc, array)
	c.vars.pending--
}

// arithWord checks a shell word whose value bash evaluates as arithmetic
// (an operand of [[ -eq ]], a name given to test -v): quotes are removed
// first, then the value is re-read. subscript limits the check to values
// naming an array element, for operands that are variable names.
func (c *checker) arithWord(w *syntax.Word, subscript bool) {
	var b strings.Builder
	c.arithParts(w.Parts, false, &b)
	if s := b.String(); !subscript || strings.Contains(s, "[") {
		c.arithText(s, "")
	}
}

// arithParts renders word parts with quotes removed into b; expansions are
// checked on their own and stand as 0 in the text.
func (c *checker) arithParts(parts []syntax.WordPart, quoted bool, b *strings.Builder) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			s, _ := unescapeLit(p.Value, quoted)
			b.WriteString(s)
		case *syntax.SglQuoted:
			b.WriteString(sglText(p))
		case *syntax.DblQuoted:
			c.arithParts(p.Parts, true, b)
		default:
			c.arith(p, "")
			b.WriteString("0")
		}
	}
}

// arithArg checks an argument word of a builtin that evaluates it (or its
// subscript, when subscript is set) as arithmetic.
func (c *checker) arithArg(w word, subscript bool, pl *plan) {
	if !w.static {
		if !subscript || strings.ContainsAny(w.text, "[$`") {
			pl.ask(w.text, "a name or number that is not a literal reaches arithmetic, which may run commands")
		}
		return
	}
	if subscript && !strings.Contains(w.text, "[") {
		return
	}
	s := w.text
	pl.inner = append(pl.inner, func() { c.arithText(s, "") })
}

// resolveArith evaluates, once the whole command line is walked, the values
// of the variables arithmetic named. It runs until no new use appears.
func (c *checker) resolveArith() {
	done := map[string]int{} // values of each name already evaluated
	cwd := c.cwd
	defer func() { c.cwd = cwd }()
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(c.vars.uses); i++ {
			u := c.vars.uses[i]
			if u.name == "" {
				continue
			}
			if u.array != "" && c.vars.assoc[u.array] {
				continue // a key of an associative array is a string
			}
			if why, ok := unknownVars.get()[u.name]; ok || (u.name[0] >= '0' && u.name[0] <= '9' && u.name != "0") {
				if done[u.name] == 0 {
					if !ok {
						why = "is a positional parameter"
					}
					c.arithUnknown(u.name, "the value of "+u.name+", which "+why)
					done[u.name] = 1
				}
				continue
			}
			vals := c.vars.values[u.name]
			for k := done[u.name]; k < len(vals); k++ {
				changed = true
				v := vals[k]
				if v.unknown != "" {
					c.arithUnknown(u.name, "the value of "+u.name+", which "+v.unknown)
					continue
				}
				c.cwd = v.cwd
				c.arithText(v.text, "")
			}
			done[u.name] = len(vals)
		}
	}
}

// testExpr walks a [[ ]] expression: arithmetic comparisons evaluate their
// operands, -v evaluates a subscript, =~ sets BASH_REMATCH.
func (c *checker) testExpr(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, o := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := o.(*syntax.Word); ok {
					c.arithWord(w, false)
				} else {
					c.testExpr(o)
				}
			}
			return
		case syntax.TsReMatch:
			c.setVar("BASH_REMATCH", varValue{unknown: "holds matched text"})
		}
		c.testExpr(x.X)
		c.testExpr(x.Y)
	case *syntax.UnaryTest:
		if w, ok := x.X.(*syntax.Word); ok && x.Op == syntax.TsVarSet {
			c.arithWord(w, true)
			return
		}
		c.testExpr(x.X)
	case *syntax.ParenTest:
		c.testExpr(x.X)
	case *syntax.Word:
		c.visit(x)
	}
}
