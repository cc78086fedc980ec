package permission_test

import (
	"fmt"
	"os"

	"github.com/agent-lsp/agent-lsp/permission"
)

func Example() {
	ws, _ := os.MkdirTemp("", "ws")
	defer os.RemoveAll(ws)
	// Load(userFile, workspaceFile) reads files; ParseRuleSet takes bytes.
	user, _, err := permission.ParseRuleSet("config.toml", []byte(`
[permissions.bash]
builtin = false
default = "ask"
allow = ["ls*", "cat *", "grep *", "git status*", "git diff*", "go test*"]
deny = ["rm *", "sudo *", "curl *", "wget *", "git push*"]

[permissions.write_file]
default = "allow"
ask = ["docs/**"]
`), permission.FromUser)
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := permission.New(ws, user)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(e.CheckCommand("git status && go test ./pkg/...").Explain())
	fmt.Print(e.CheckCommand("ls; bash -c 'rm -rf build'").Explain())
	fmt.Print(e.CheckCommand("go run ./cmd/x").Explain())
	fmt.Print(e.CheckPath("write_file", "docs/guide.md", true).Explain())
	fmt.Print(e.CheckPath("write_file", ".git/hooks/pre-commit", true).Explain())
	// Output:
	// allow: allow rule `git status*` (config.toml)
	//   allow git status  (allow rule `git status*` (config.toml))
	//   allow go test ./pkg/...  (allow rule `go test*` (config.toml))
	// deny: deny rule `rm *` (config.toml)
	//   allow ls  (allow rule `ls*` (config.toml))
	//   allow bash -c rm -rf build  (runs the command checked below)
	//   deny  rm -rf build  (deny rule `rm *` (config.toml))
	// ask: no rule matches; default of config.toml is ask
	//   ask   go run ./cmd/x  (no rule matches; default of config.toml is ask) [allow for session: `go run ./cmd/x`]
	// ask: ask rule `docs/**` (config.toml)
	//   ask   docs/guide.md  (ask rule `docs/**` (config.toml)) [allow for session: `docs/**`]
	// deny: protected path .git/**: git metadata (hooks and config run commands)
	//   deny  .git/hooks/pre-commit  (protected path .git/**: git metadata (hooks and config run commands))
}
