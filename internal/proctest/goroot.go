package proctest

import (
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// GoRoot is the Go tree tests and benchmarks read sources from: `go env
// GOROOT` of the go on PATH (runtime.GOROOT is where the test binary was
// built, deprecated for this), else the build's.
var GoRoot = sync.OnceValue(func() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if root := strings.TrimSpace(string(out)); root != "" {
			return root
		}
	}
	return runtime.GOROOT() //lint:ignore SA1019 the fallback when go is not on PATH
})
