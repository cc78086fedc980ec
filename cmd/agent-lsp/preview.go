package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// callSubject is what a tool call acts on, for a person: a bash call's
// command, a file tool's path (and pattern), else its arguments squeezed
// onto one line. Control and invisible characters are escaped: the
// arguments come from the model.
func callSubject(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) == nil {
		if cmd, ok := m["command"].(string); ok {
			return oneLine(cmd, 1<<20)
		}
		var parts []string
		for _, k := range []string{"path", "pattern", "query"} {
			if v, ok := m[k].(string); ok && v != "" {
				parts = append(parts, v)
			}
		}
		if len(parts) > 0 {
			return oneLine(strings.Join(parts, " "), 1<<20)
		}
	}
	return oneLine(args, 1<<20)
}

// Preview limits: the first and last lines of a result are shown; a
// success's lines are cut to the terminal width. An error's lines are not
// cut (up to maxErrorLine runes): they end with how to recover, such as
// the "rerun with --ask=allow" hint.
const (
	previewHead  = 3
	previewTail  = 2
	maxErrorLine = 2000
)

// preview is a tool result as lines to show under its call: all of them
// when there are few, else the first and the last with a count of those
// left out between. Line breaks are kept; each line is made printable.
func preview(result string, width int, isError bool) []string {
	result = strings.TrimRight(strings.ReplaceAll(result, "\r\n", "\n"), "\n")
	if strings.TrimSpace(result) == "" {
		return []string{"(no output)"}
	}
	lines := strings.Split(result, "\n")
	if len(lines) > previewHead+previewTail+1 {
		omitted := len(lines) - previewHead - previewTail
		lines = append(append(lines[:previewHead:previewHead], fmt.Sprintf("… %d more lines", omitted)), lines[len(lines)-previewTail:]...)
	}
	limit := width
	if isError {
		limit = maxErrorLine
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = clipRunes(printable(strings.TrimRight(l, " \t\r")), limit)
	}
	return out
}
