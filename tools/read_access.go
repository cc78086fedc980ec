package tools

import "path"

// The read tools name their paths for the Guard (see Accessor), so the
// permission rules see explicit paths: sensitive files ask, paths outside
// the workspace are refused before the tool runs. A call without a path
// reads from the workspace root and names none.

// Access reports the file read_file reads.
func (p *ReadFileParams) Access() Access { return Access{Kind: AccessRead, Paths: []string{p.Path}} }

// Access reports the directory glob searches and the pattern under it.
func (p *GlobParams) Access() Access {
	pat := p.Pattern
	if p.Path != "" && !path.IsAbs(pat) {
		pat = path.Join(p.Path, pat)
	}
	return Access{Kind: AccessRead, Paths: nonEmpty(p.Path, pat)}
}

// Access reports the file or directory grep searches, if named.
func (p *GrepParams) Access() Access { return Access{Kind: AccessRead, Paths: nonEmpty(p.Path)} }

func nonEmpty(ps ...string) []string {
	var out []string
	for _, p := range ps {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
