package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/agent-lsp/agent-lsp/internal/text"
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

// ReadFileOption configures read_file.
type ReadFileOption func(*readFileConfig)

type readFileConfig struct {
	reads *Reads
	spill *Spill
}

// WithReads makes read_file record what it shows in r, which the write
// tools of the same session check (see Reads).
func WithReads(r *Reads) ReadFileOption { return func(c *readFileConfig) { c.reads = r } }

// WithSpill lets read_file read the files s wrote (full outputs of earlier
// tool calls), given by the absolute path the cut output named. They are
// the only files outside the workspace it reads.
func WithSpill(s *Spill) ReadFileOption { return func(c *readFileConfig) { c.spill = s } }

// NewReadFile returns the read_file tool over ws.
func NewReadFile(ws Workspace, opts ...ReadFileOption) *Tool {
	var cfg readFileConfig
	for _, o := range opts {
		o(&cfg)
	}
	return Define("read_file", readFileDescription, true, func(ctx context.Context, p *ReadFileParams) (Result, error) {
		return readFile(ctx, ws, &cfg, p)
	})
}

func readFile(ctx context.Context, ws Workspace, cfg *readFileConfig, p *ReadFileParams) (Result, error) {
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
	if filepath.IsAbs(p.Path) && cfg.spill.Owns(filepath.Clean(p.Path)) {
		return readSpill(ctx, filepath.Clean(p.Path), offset, limit)
	}
	rel, err := resolveIn(ws, p.Path)
	if err != nil {
		return Errorf("read_file: %v", err), nil
	}
	if cfg.reads != nil {
		// Wait for edits of this file queued before this read (M44).
		unlock, err := cfg.reads.lock(ctx, rel)
		if err != nil {
			return Result{}, err
		}
		defer unlock()
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
			if o, ok := ws.(opener); ok {
				return readLarge(ctx, o, rel, big.Size, offset, limit)
			}
			return Errorf("read_file: %s is %d bytes, too large to read (limit %d bytes); use grep with path %q to find the lines you need", rel, big.Size, big.Limit, rel), nil
		}
		return Errorf("read_file: %v", err), nil
	}
	if isBinary(data, false) {
		return Errorf("read_file: %s is a binary file, %d bytes; read_file shows text only", rel, len(data)), nil
	}
	res := showLines(rel, data, offset, limit)
	if !res.IsError {
		cfg.reads.MarkRead(rel, data)
	}
	return res, nil
}

// showLines numbers the requested lines of a text file read whole.
func showLines(name string, data []byte, offset, limit int) Result {
	if len(data) == 0 {
		return Result{Text: fmt.Sprintf("(%s is empty)", name)}
	}
	total := bytes.Count(data, nl)
	if data[len(data)-1] != '\n' {
		total++
	}
	if offset > total {
		return Errorf("read_file: offset %d is past the end of %s, which has %d lines", offset, name, total)
	}
	br := bufio.NewReader(bytes.NewReader(data))
	return Result{Text: numberLines(br, offset, limit, fmt.Sprintf("of %d", total), total)}
}

// opener is implemented by workspaces that can stream a file too large to
// load (DiskWorkspace); read_file uses it only after ReadFile said so.
type opener interface {
	Open(ctx context.Context, path string) (io.ReadCloser, error)
}

// readLarge shows lines of a text file too large to load whole, reading it
// as a stream up to the last line shown.
func readLarge(ctx context.Context, o opener, rel string, size int64, offset, limit int) (Result, error) {
	f, err := o.Open(ctx, rel)
	if err != nil {
		return Errorf("read_file: %v", err), nil
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(sniffLen)
	if isBinary(head, true) {
		return Errorf("read_file: %s is a binary file, %d bytes; read_file shows text only", rel, size), nil
	}
	text := numberLines(br, offset, limit, fmt.Sprintf("of a %s file", text.Size(int64(size))), -1)
	if text == "" {
		return Errorf("read_file: offset %d is past the end of %s", offset, rel), nil
	}
	return Result{Text: text}, nil
}

// numberLines formats lines offset..offset+limit-1 read from br like
// cat -n, within the per-call byte cap, with a footer saying how to read
// on. of describes the file's length for the footer; total is its number of
// lines, or -1 if unknown. It returns "" if the file ends before offset.
func numberLines(br *bufio.Reader, offset, limit int, of string, total int) string {
	for n := 1; n < offset; n++ {
		if _, _, ok := readLine(br); !ok {
			return ""
		}
	}
	var b strings.Builder
	last, cutLines, more := offset-1, false, false
	for n := offset; ; n++ {
		line, long, ok := readLine(br)
		if !ok {
			break
		}
		if n >= offset+limit {
			more = true
			break
		}
		if long > ReadMaxLineBytes {
			line = fmt.Appendf(line[:runeStart(string(line), ReadMaxLineBytes)], " [... line cut, %d bytes in all]", long)
			cutLines = true
		}
		entry := fmt.Sprintf("%6d\t%s\n", n, bytes.ToValidUTF8(line, []byte("\uFFFD")))
		if b.Len()+len(entry) > ReadMaxBytes && n > offset {
			more = true
			break
		}
		b.WriteString(entry)
		last = n
	}
	if last < offset {
		return ""
	}
	switch {
	case more:
		fmt.Fprintf(&b, "[showing lines %d-%d %s; call read_file with offset=%d to read on]\n", offset, last, of, last+1)
	case offset > 1:
		fmt.Fprintf(&b, "[showing lines %d-%d %s, to the end of the file]\n", offset, last, of)
	}
	if cutLines {
		fmt.Fprintf(&b, "[lines over %d bytes were cut; use grep to find text in them]\n", ReadMaxLineBytes)
	}
	return b.String()
}

// readLine reads one line without its newline (and CR). It keeps at most
// ReadMaxLineBytes+4 bytes of it and returns its full length.
func readLine(br *bufio.Reader) (line []byte, length int, ok bool) {
	var last byte // the line's last byte, kept across buffer-sized pieces
	for {
		chunk, err := br.ReadSlice('\n')
		ended := err == nil
		content := chunk
		if ended {
			content = chunk[:len(chunk)-1]
		}
		length += len(content)
		if len(content) > 0 {
			last = content[len(content)-1]
		}
		if keep := ReadMaxLineBytes + 4 - len(line); keep > 0 {
			line = append(line, content[:min(len(content), keep)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if length == 0 && !ended {
			return nil, 0, false
		}
		if last == '\r' {
			length--
			if len(line) > length { // all of it was kept: drop the CR
				line = line[:length]
			}
		}
		return line, length, true
	}
}
