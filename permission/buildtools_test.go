package permission

import "testing"

// TestBuildToolFlags: flags that make build tools run another command or
// write elsewhere are checked as that command or path, even under the
// allow rules `make*`, `npm test*` and `go test*`.
func TestBuildToolFlags(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir(), issueRules())
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, e, []verdictCase{
		{"make SHELL='rm -rf victim'", Deny},
		{"make SHELL=/tmp/evil", Ask},
		{"make build SHELL=/bin/bash", Ask},
		{"make .SHELLFLAGS='-c rm -rf victim;'", Ask},
		{"make --eval='x:;rm -rf victim' x", Deny},
		{"make --eval 'x: ; sudo id' x", Deny},
		{"make -E '$(shell rm -rf victim)'", Deny},
		{"make --eval='all:;@echo hi'", Ask},
		{"make -f - <<'EOF'\nall:\n\trm -rf victim\nEOF", Deny},
		{"make -f- <<EOF\nall:\n\t@sudo id\nEOF", Deny},
		{"make --file=- <<'EOF'\nall:\n\techo hi\nEOF", Allow},
		{"make -f - all", Ask},
		{"cat Makefile | make -f -", Ask},
		{"make -f /tmp/evil.mk", Ask},
		{"make -f/tmp/evil.mk", Ask},
		{"MAKEFILES=/tmp/evil.mk make", Ask},
		{"env MAKEFILES=evil.mk make", Ask},
		{"MAKEFLAGS='--eval=x' make", Ask},
		{"make CC='rm -rf victim'", Deny},
		{"make CFLAGS='$(shell rm -rf victim)'", Deny},
		{"make VERBOSE=1 build", Allow},
		{"make -j4 test", Allow},
		{"npm test --script-shell='rm -rf victim'", Deny},
		{"npm test --script-shell=/tmp/evil", Ask},
		{"npm test --script-shell /tmp/evil", Ask},
		{"npm test --node-options='--require /tmp/x.js'", Ask},
		{"npm test --userconfig=/tmp/npmrc", Ask},
		{"npm_config_script_shell=/tmp/evil npm test", Ask},
		{"npm test", Allow},
		{"npm test -- --watch=false", Allow},
		{"go test ./... -args -test.coverprofile=.git/hooks/pre-commit", Ask},
		{"go test . -args -test.cpuprofile=/tmp/x", Ask},
		{"go test -test.memprofile=.git/hooks/post-checkout .", Ask},
		{"go test -coverprofile .git/hooks/pre-push ./...", Ask},
		{"go test -o .git/hooks/pre-commit -c .", Ask},
		{"go test -outputdir=.git/hooks -cpuprofile=pre-commit .", Ask},
		{"go test -overlay=/tmp/overlay.json ./...", Ask},
		{"go test -args -test.testlogfile=/tmp/log .", Ask},
		{"go test -coverprofile=cover.out ./...", Allow},
		{"go test -run TestX/sub -count=1 ./...", Allow},
		{"git config alias.x '!rm -rf victim'", Deny},
		{"git config --local alias.x '!rm -rf victim'", Deny},
		{"git config set alias.x '!sudo id'", Deny},
		{"git config alias.x '!true'", Ask},
		{"git -c alias.x='!rm -rf victim' x", Deny},
		{"git -c 'alias.x=!sudo id' x", Deny},
		{"git -c alias.st=status st", Ask},
	})
}
