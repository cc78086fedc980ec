package permission

import (
	"strings"
)

// goTool checks go subcommands' options that run other programs or write.
func (c *checker) goTool(args []word, pl *plan) {
	for i, a := range args {
		if v, ok := optValue(args, i, "-exec", "--exec"); ok {
			pl.ask(a.text, "go -exec runs a program with the test binary")
			pl.inner = append(pl.inner, func() { c.nestedProgram(v, "go -exec") })
		}
		if v, ok := optValue(args, i, "-toolexec", "--toolexec"); ok {
			pl.ask(a.text, "go -toolexec runs a program for every tool")
			pl.inner = append(pl.inner, func() { c.nestedProgram(v, "go -toolexec") })
		}
		if v, ok := optValue(args, i, "-vettool", "--vettool"); ok {
			pl.ask(a.text, "go vet -vettool runs a program")
			pl.inner = append(pl.inner, func() { c.nestedProgram(v, "go vet -vettool") })
		}
		if strings.Contains(a.text, "-extld") || strings.Contains(a.text, "-linkmode=external") {
			pl.ask(a.text, "go -ldflags -extld runs another linker program")
		}
		if a.text == "-mod=mod" || (a.text == "-mod" && i+1 < len(args) && args[i+1].text == "mod") {
			pl.ask(a.text, "go -mod=mod may change go.mod and download modules")
		}
		if v, ok := optValue(args, i, "-C"); ok && a.text == "-C" {
			if r, why := c.readPath(v.text); r >= Ask || !v.static {
				pl.ask(v.text, "go -C: "+why)
			}
		}
	}
	c.goWrites(args, pl)
}
