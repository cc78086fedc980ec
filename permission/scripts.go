package permission

import (
	"strings"
)

// scriptFile checks the script a shell or source reads from a file, when
// the command line shows what the file holds: <(echo sudo id) or a file
// it wrote itself (echo 'sudo id' > x.sh; source x.sh). A script from a
// download is denied, as `curl ... | sh` is.
func (c *checker) scriptFile(base string, f word, pl *plan) {
	text, known := "", false
	switch {
	case f.proc != nil && f.proc.download:
		pl.deny(f.text, base+" runs what a download command fetched")
		return
	case f.proc != nil:
		text, known = f.proc.text, f.proc.known
	case f.static && !f.glob:
		text, known = c.writtenScript(f.text)
	}
	if known {
		w := word{text: text, static: true}
		pl.inner = append(pl.inner, func() { c.nestedScript(w, base+" "+f.text) })
	}
}

// scheduled checks what at, batch and crontab read on standard input when
// it is literal (a here-document, a here-string, echo piped in): the job
// runs later, but it runs. A crontab line is five time fields (or @daily
// and the like) and the command.
func (c *checker) scheduled(base string, in stdin, pl *plan) {
	pl.ask(base, base+" schedules commands to run later")
	text, known := in.script, in.set && in.known && !in.file
	if !known && !in.set && c.piped && c.pipeKnown {
		text, known = c.pipeText, true
	}
	if !known {
		return
	}
	if base == "crontab" {
		var cmds []string
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(line)
			switch {
			case len(f) == 0 || strings.HasPrefix(f[0], "#"):
			case strings.HasPrefix(f[0], "@") && len(f) > 1:
				cmds = append(cmds, strings.Join(f[1:], " "))
			case len(f) > 5 && !strings.Contains(f[0], "="):
				cmds = append(cmds, strings.Join(f[5:], " "))
			}
		}
		text = strings.Join(cmds, "\n")
	}
	w := word{text: text, static: true}
	pl.inner = append(pl.inner, func() { c.nestedScript(w, base+" job") })
}

// trap: the action is a command run later (on a signal or at exit); `-`,
// an empty action or a lone signal resets or ignores.
func (c *checker) trap(args []word, pl *plan) {
	pl.noArgCheck = true
	for len(args) > 0 && strings.HasPrefix(args[0].text, "-") && args[0].text != "-" {
		if args[0].text == "--" {
			args = args[1:]
			break
		}
		if strings.ContainsAny(args[0].text, "lpP") {
			return // lists traps or signals
		}
		args = args[1:]
	}
	if len(args) < 2 || args[0].text == "-" {
		return
	}
	w := args[0]
	pl.inner = append(pl.inner, func() { c.nestedScript(w, "trap") })
}

// writeWord records a file a command writes.
func (c *checker) writeWord(w word, pl *plan) {
	if !w.static || w.glob {
		pl.ask(w.text, "write target is not a literal path")
		return
	}
	if p, bad := c.writePath(w.text); bad {
		pl.floor = append(pl.floor, p)
	}
}
