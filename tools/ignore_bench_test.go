package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// bigIgnore is a .gitignore of the size real projects have (GitHub's Go,
// Node and Python templates merged).
const bigIgnore = `*.exe
*.exe~
*.dll
*.so
*.dylib
*.test
*.out
go.work
go.work.sum
.env
.env.*
!.env.example
logs
*.log
npm-debug.log*
yarn-debug.log*
yarn-error.log*
lerna-debug.log*
.pnpm-debug.log*
report.[0-9]*.[0-9]*.[0-9]*.[0-9]*.json
pids
*.pid
*.seed
*.pid.lock
lib-cov
coverage
*.lcov
.nyc_output
.grunt
bower_components
.lock-wscript
build/Release
node_modules/
jspm_packages/
web_modules/
*.tsbuildinfo
.npm
.eslintcache
.stylelintcache
.rpt2_cache/
.rts2_cache_cjs/
.node_repl_history
*.tgz
.yarn-integrity
.cache
.parcel-cache
.next
out
.nuxt
dist
.vuepress/dist
.serverless/
.fusebox/
.dynamodb/
.tern-port
.vscode-test
__pycache__/
*.py[cod]
*$py.class
.Python
develop-eggs/
downloads/
eggs/
.eggs/
lib64/
parts/
sdist/
var/
wheels/
*.egg-info/
.installed.cfg
*.egg
MANIFEST
*.manifest
*.spec
pip-log.txt
htmlcov/
.tox/
.nox/
.coverage
.coverage.*
nosetests.xml
coverage.xml
*.cover
.hypothesis/
.pytest_cache/
*.mo
*.pot
docs/_build/
target/
.ipynb_checkpoints
.DS_Store
Thumbs.db
/tmp/
**/generated/**/*.pb.go
`

// BenchmarkIgnoreMatch measures the .gitignore check alone over every path
// of Go's source tree, with the rules above.
func BenchmarkIgnoreMatch(b *testing.B) {
	src := filepath.Join(proctest.GoRoot(), "src")
	ws, err := NewDiskWorkspace(src)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	var paths [][]string
	root, _ := os.OpenRoot(src)
	defer root.Close()
	w := &walker{ctx: context.Background(), file: func(d *dirNode, name, rel string) bool {
		d.release()
		paths = append(paths, strings.Split(rel, "/"))
		return true
	}}
	w.walk(root, ".")
	rules := parseIgnore([]byte(bigIgnore), nil)
	b.Logf("%d paths, %d rules", len(paths), len(rules))
	b.Run("indexed", func(b *testing.B) {
		m := compileIgnore(rules)
		for b.Loop() {
			for _, p := range paths {
				m.match(p, false)
			}
		}
	})
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			for _, p := range paths {
				rules.matchReference(p, false)
			}
		}
	})
}
