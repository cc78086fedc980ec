package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/agent-lsp/agent-lsp/internal/text"
)

// Tool kinds of the schema.
const (
	kindRead    = "read"
	kindEdit    = "edit"
	kindSearch  = "search"
	kindExecute = "execute"
	kindThink   = "think"
	kindOther   = "other"
)

// callArgs are the arguments of our tools that titles and locations use.
type callArgs struct {
	Path        string `json:"path"`
	Offset      int    `json:"offset"`
	Limit       int    `json:"limit"`
	Pattern     string `json:"pattern"`
	Command     string `json:"command"`
	Description string `json:"description"`
	Name        string `json:"name"`
}

// describe gives a tool call's title, kind and locations (absolute paths,
// under root) from its name and raw arguments, and the arguments as JSON
// for rawInput (the raw text when it is not a JSON object).
func describe(root, name, arguments string) (title, kind string, locs []location, raw any) {
	var a callArgs
	if json.Valid([]byte(arguments)) {
		_ = json.Unmarshal([]byte(arguments), &a)
		raw = json.RawMessage(arguments)
	} else if arguments != "" {
		raw = arguments
	}
	at := func(line int) []location {
		if a.Path == "" {
			return nil
		}
		l := location{Path: absPath(root, a.Path)}
		if line > 0 {
			l.Line = &line
		}
		return []location{l}
	}
	switch name {
	case "read_file":
		title = "Read " + short(a.Path)
		switch {
		case a.Offset > 0 && a.Limit > 0:
			title += fmt.Sprintf(":%d-%d", a.Offset, a.Offset+a.Limit-1)
		case a.Offset > 0:
			title += fmt.Sprintf(":%d", a.Offset)
		case a.Limit > 0:
			title += fmt.Sprintf(":1-%d", a.Limit)
		}
		return title, kindRead, at(a.Offset), raw
	case "str_replace":
		return "Edit " + short(a.Path), kindEdit, at(0), raw
	case "write_file":
		return "Write " + short(a.Path), kindEdit, at(0), raw
	case "grep":
		title = "Search " + quote(a.Pattern)
		if a.Path != "" {
			title += " in " + short(a.Path)
		}
		return title, kindSearch, at(0), raw
	case "glob":
		title = "Find " + quote(a.Pattern)
		if a.Path != "" {
			title += " in " + short(a.Path)
		}
		return title, kindSearch, at(0), raw
	case "bash":
		return "Run " + text.OneLine(a.Command, 100), kindExecute, nil, raw
	case "task":
		return "Task: " + text.OneLine(a.Description, 80), kindThink, nil, raw
	case "write_todos":
		return "Update the plan", kindThink, nil, raw
	case "read_skill":
		return "Read skill " + text.OneLine(a.Name, 60), kindRead, nil, raw
	}
	return name, kindOther, nil, raw
}

// absPath is p, relative to root unless absolute, as an absolute path.
func absPath(root, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root, filepath.FromSlash(p))
}

func short(p string) string {
	if p == "" {
		return "(no path)"
	}
	return text.OneLine(p, 120)
}

func quote(s string) string { return "`" + text.OneLine(s, 80) + "`" }
