package permission

import (
	"strings"
)

// assign checks NAME=value (prefix, env argument or declaration) and
// returns the structural parts it adds.
func (c *checker) assign(name string, val word) []Part {
	var out []Part
	if why := dangerousVar(name); why != "" {
		out = append(out, Part{Text: name + "=" + val.text, Verdict: Ask, Structural: true, Reason: "sets " + name + ": " + why})
	}
	if u := strings.ToUpper(name); val.static && (u == "MAKEFLAGS" || u == "MFLAGS" || u == "GNUMAKEFLAGS") {
		// What make would run from the options it reads here.
		var pl plan
		c.makeVar(u, val.text, &pl)
		out = append(out, pl.floor...)
		for _, f := range pl.inner {
			f()
		}
	}
	if strings.ToUpper(name) == "GOFLAGS" && val.static {
		// go reads GOFLAGS as flags of every go command:
		// GOFLAGS=-toolexec=sudo is go test -toolexec=sudo.
		var pl plan
		var ws []word
		for _, f := range strings.Fields(val.text) {
			ws = append(ws, word{text: f, static: true})
		}
		c.goTool(ws, &pl)
		out = append(out, pl.floor...)
		for _, f := range pl.inner {
			f()
		}
	}
	if promptVar(name) {
		// bash expands a prompt's value when it shows it, $( ) included:
		// PS4='$(cmd)' runs cmd at every line `set -x` traces, PS1 at
		// every prompt of an interactive shell.
		if val.static {
			c.arithText(val.text, "")
		} else {
			out = append(out, Part{Text: name + "=" + val.text, Verdict: Ask, Structural: true, Reason: name + " holds a prompt that is not a literal"})
		}
	}
	if commandVar(name) {
		if val.static {
			v := strings.TrimLeft(val.text, "|-")
			c.script(v, c.depth+1, "command in "+name)
		} else {
			out = append(out, Part{Text: name + "=" + val.text, Verdict: Ask, Structural: true, Reason: name + " holds a command that is not a literal"})
		}
	}
	return out
}

// promptVar reports the variables bash expands as prompts.
func promptVar(name string) bool {
	switch name {
	case "PS0", "PS1", "PS2", "PS3", "PS4":
		return true
	}
	return false
}
