package tools

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"strings"
)

//go:embed write_file.md
var writeFileDescription string

// WriteFileParams are the arguments of write_file. Content is required
// but may be empty when given (M09: a missing content is an error, never
// an empty file).
type WriteFileParams struct {
	Path    string `json:"path" jsonschema:"File to create or replace, relative to the workspace root"`
	Content string `json:"content" jsonschema:"The complete new content of the file"`
	Reason  string `json:"reason,omitempty" jsonschema:"Optional: one short sentence on why, shown to the user when they review the edit"`
}

// Access tells the Guard which path the call writes.
func (p *WriteFileParams) Access() Access {
	return Access{Kind: AccessWrite, Paths: []string{p.Path}}
}

// NewWriteFile returns the write_file tool over ed. reads is the
// session's record (nil: a fresh one, so nothing counts as read).
func NewWriteFile(ed Editor, reads *Reads) *Tool {
	if reads == nil {
		reads = NewReads()
	}
	return Define("write_file", writeFileDescription, false, func(ctx context.Context, p *WriteFileParams) (Result, error) {
		return writeFile(ctx, ed, reads, p)
	})
}

func writeFile(ctx context.Context, ed Editor, reads *Reads, p *WriteFileParams) (Result, error) {
	rel, err := resolveIn(ed, p.Path)
	if err != nil {
		return Errorf("write_file: %v", err), nil
	}
	if rel == "." || strings.HasSuffix(p.Path, "/") {
		return Errorf("write_file: %q names a directory; give the path of a file", p.Path), nil
	}
	unlock, err := reads.lock(ctx, rel)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	cur, exists, res, err := current(ctx, ed, "write_file", rel)
	if res != nil || err != nil {
		return deref(res), err
	}
	c := Change{Path: rel, New: []byte(p.Content), Label: "agent-lsp: write_file " + rel, Reason: p.Reason}
	var notes []string
	if exists {
		if msg := reads.stale("write_file", rel, cur); msg != "" {
			return Errorf("%s", msg), nil
		}
		c.Old = cur
		c.New, notes = keepStyle(cur, c.New)
		if bytes.Equal(cur, c.New) {
			return Result{Text: fmt.Sprintf("%s already has this content (%s); nothing was written.", rel, plural(lineCount(cur), "line"))}, nil
		}
	}
	res, diags, err := commit(ctx, ed, reads, "write_file", c, nil, false)
	if res != nil || err != nil {
		return deref(res), err
	}
	text := fmt.Sprintf("Created %s (%s).", rel, plural(lineCount(c.New), "line"))
	if exists {
		text = fmt.Sprintf("Replaced %s: %s (was %d).", rel, plural(lineCount(c.New), "line"), lineCount(cur))
	}
	for _, n := range notes {
		text += "\nNote: " + n
	}
	return Result{Text: text + diags}, nil
}

func deref(r *Result) Result {
	if r == nil {
		return Result{}
	}
	return *r
}

var bom = []byte("\xef\xbb\xbf")

// keepStyle gives new content the old file's byte-order mark and CRLF line
// endings when the model wrote it without them, and says so.
func keepStyle(old, content []byte) ([]byte, []string) {
	var notes []string
	if bytes.HasPrefix(old, bom) && !bytes.HasPrefix(content, bom) {
		content = append(bytes.Clone(bom), content...)
		notes = append(notes, "kept the file's UTF-8 byte-order mark")
	}
	if eolOf(old) == "\r\n" && bytes.IndexByte(content, '\r') < 0 && bytes.IndexByte(content, '\n') >= 0 {
		content = bytes.ReplaceAll(content, nl, []byte("\r\n"))
		notes = append(notes, "kept the file's CRLF line endings")
	}
	return content, notes
}

// eolOf returns the line ending most lines of b end with ("\n" when
// there are none or as many of each).
func eolOf(b []byte) string {
	lines := bytes.Count(b, nl)
	crlf := bytes.Count(b, []byte("\r\n"))
	if crlf > lines-crlf {
		return "\r\n"
	}
	return "\n"
}

// plural says "1 line", "2 lines".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
