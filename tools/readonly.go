package tools

// ReadOnlyTools returns the tools that only read the workspace: read_file,
// glob and grep.
func ReadOnlyTools(ws Workspace) []*Tool {
	return []*Tool{NewReadFile(ws), NewGlob(ws), NewGrep(ws)}
}

// EditTools returns the tools that change files, over ed: str_replace
// and write_file. reads is the session's record of what the agent has
// read; give the same one to read_file (WithReads), or use FileTools.
func EditTools(ed Editor, reads *Reads) []*Tool {
	if reads == nil {
		reads = NewReads()
	}
	return []*Tool{NewStrReplace(ed, reads), NewWriteFile(ed, reads)}
}

// FileTools returns every file tool of one session over ed, sharing one
// Reads: read_file (reading spill's files too, if spill is not nil), glob,
// grep, str_replace and write_file.
func FileTools(ed Editor, reads *Reads, spill *Spill) []*Tool {
	if reads == nil {
		reads = NewReads()
	}
	return append([]*Tool{NewReadFile(ed, WithReads(reads), WithSpill(spill)), NewGlob(ed), NewGrep(ed)}, EditTools(ed, reads)...)
}
