package tools

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/agent-lsp/agent-lsp/internal/text"
)

// readSpill shows lines of a file the session's Spill wrote, outside the
// workspace. The path is opened directly, refusing a symbolic link in its
// last component, and the handle must be a regular file with one link.
func readSpill(ctx context.Context, p string, offset, limit int) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if lst, err := os.Lstat(p); err != nil {
		return Errorf("read_file: %s: %v", p, err), nil
	} else if !lst.Mode().IsRegular() {
		return Errorf("read_file: %v", &NotRegularError{Path: p, Mode: lst.Mode()}), nil
	}
	f, err := os.OpenFile(p, os.O_RDONLY|oNonblock|oNofollow, 0)
	if err != nil {
		return Errorf("read_file: %s: %v", p, err), nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Result{}, fmt.Errorf("stat %s: %w", p, err)
	}
	if err := checkHandle(p, st, false); err != nil {
		return Errorf("read_file: %v", err), nil
	}
	if st.Size() > DefaultMaxFileSize {
		br := bufio.NewReaderSize(f, 64<<10)
		text := numberLines(br, offset, limit, fmt.Sprintf("of a %s file", text.Size(int64(st.Size()))), -1)
		if text == "" {
			return Errorf("read_file: offset %d is past the end of %s", offset, p), nil
		}
		return Result{Text: text}, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, DefaultMaxFileSize+1))
	if err != nil {
		return Result{}, fmt.Errorf("read %s: %w", p, err)
	}
	if isBinary(data, false) {
		return Errorf("read_file: %s is a binary file, %d bytes; read_file shows text only", p, len(data)), nil
	}
	return showLines(p, data, offset, limit), nil
}
