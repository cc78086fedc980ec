package tools

import (
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// goRoot is the Go tree the search tests and benchmarks walk: `go env
// GOROOT` of the go on PATH (runtime.GOROOT is where the test binary was
// built, deprecated for this), else the build's.
var goRoot = sync.OnceValue(func() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if root := strings.TrimSpace(string(out)); root != "" {
			return root
		}
	}
	return runtime.GOROOT() //lint:ignore SA1019 the fallback when go is not on PATH
})
