package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
)

//go:embed read_file.md
var readFileDescription string

// Limits of one read_file call.
const (
	ReadMaxLines     = 2000
	ReadMaxBytes     = 256 << 10
	ReadMaxLineBytes = 2000
)

// ReadFileParams are the arguments of read_file.
type ReadFileParams struct {
	Path   string `json:"path" jsonschema:"File to read, relative to the workspace root"`
	Offset int    `json:"offset,omitempty" jsonschema:"First line to show, 1-based (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"Number of lines to show (default and maximum 2000)"`
}

// NewReadFile returns the read_file tool over ws.
func NewReadFile(ws Workspace) *Tool {
	return Define("read_file", readFileDescription, true, func(ctx context.Context, p *ReadFileParams) (Result, error) {
		return readFile(ctx, ws, p)
	})
}

func readFile(ctx context.Context, ws Workspace, p *ReadFileParams) (Result, error) {
	if p.Offset < 0 {
		return Errorf("offset must be 1 or more (the first line is 1), got %d", p.Offset), nil
	}
	if p.Limit < 0 {
		return Errorf("limit must be 1 or more, got %d", p.Limit), nil
	}
	offset, limit := max(p.Offset, 1), p.Limit
	if limit == 0 || limit > ReadMaxLines {
		limit = ReadMaxLines
	}
	rel, err := resolveIn(ws, p.Path)
	if err != nil {
		return Errorf("read_file: %v", err), nil
	}
	data, err := ws.ReadFile(ctx, rel)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		var big *TooLargeError
		if errors.As(err, &big) {
			if big.Binary {
				return Errorf("read_file: %s is a binary file, %d bytes; read_file shows text only", rel, big.Size), nil
			}
			return Errorf("read_file: %s is %d bytes, too large to read (limit %d bytes); use grep with path %q to find the lines you need", rel, big.Size, big.Limit, rel), nil
		}
		return Errorf("read_file: %v", err), nil
	}
	if isBinary(data, false) {
		return Errorf("read_file: %s is a binary file, %d bytes; read_file shows text only", rel, len(data)), nil
	}
	if len(data) == 0 {
		return Result{Text: fmt.Sprintf("(%s is empty)", rel)}, nil
	}
	return Result{Text: numberLines(rel, data, offset, limit)}, nil
}

// numberLines formats lines offset..offset+limit-1 of data like cat -n,
// within the per-call byte cap, with a footer saying how to read on.
func numberLines(rel string, data []byte, offset, limit int) string {
	total := bytes.Count(data, []byte{'\n'})
	if data[len(data)-1] != '\n' {
		total++
	}
	if offset > total {
		return fmt.Sprintf("(offset %d is past the end of %s, which has %d lines)", offset, rel, total)
	}
	// Skip to the first wanted line.
	rest := data
	for n := 1; n < offset; n++ {
		rest = rest[bytes.IndexByte(rest, '\n')+1:]
	}
	var b strings.Builder
	last := offset - 1
	cutLines := false
	for n := offset; n < offset+limit && len(rest) > 0; n++ {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) > ReadMaxLineBytes {
			line = cutLine(line, ReadMaxLineBytes)
			cutLines = true
		}
		entry := fmt.Sprintf("%6d\t%s\n", n, bytes.ToValidUTF8(line, []byte("\uFFFD")))
		if b.Len()+len(entry) > ReadMaxBytes && n > offset {
			break
		}
		b.WriteString(entry)
		last = n
	}
	switch {
	case last < total:
		fmt.Fprintf(&b, "[showing lines %d-%d of %d; call read_file with offset=%d to read on]\n", offset, last, total, last+1)
	case offset > 1:
		fmt.Fprintf(&b, "[showing lines %d-%d of %d, to the end of the file]\n", offset, last, total)
	}
	if cutLines {
		fmt.Fprintf(&b, "[lines over %d bytes were cut; use grep to find text in them]\n", ReadMaxLineBytes)
	}
	return b.String()
}
