package permission

import (
	"os"
	"strings"
	"testing"
)

func TestDebugExplain(t *testing.T) {
	cmds := os.Getenv("PERM_DEBUG")
	if cmds == "" {
		t.Skip()
	}
	e, _ := New(t.TempDir())
	for _, c := range strings.Split(cmds, "\n") {
		t.Logf("%s\n%s", c, e.CheckCommand(c).Explain())
	}
}
