package tools

// ReadOnlyTools returns the tools that only read the workspace: read_file,
// glob and grep.
func ReadOnlyTools(ws Workspace) []*Tool {
	return []*Tool{NewReadFile(ws), NewGlob(ws), NewGrep(ws)}
}
