//go:build !unix

package tools

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
)

// dirNode is an open directory of the walk (an os.Root on systems without
// openat), shared by the walker and the workers that read its files.
type dirNode struct {
	r    *os.Root
	refs atomic.Int32
}

func openStartDir(root *os.Root, rel string) (*dirNode, error) {
	r, err := root.OpenRoot(rel)
	if err != nil {
		return nil, rootError(rel, err)
	}
	d := &dirNode{r: r}
	d.refs.Store(1)
	return d, nil
}

func (d *dirNode) release() {
	if d.refs.Add(-1) == 0 {
		d.r.Close()
	}
}

func (d *dirNode) list() ([]fs.DirEntry, error) {
	f, err := d.r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (d *dirNode) openDir(name string) (*dirNode, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, errNotRegular
	}
	r, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	n := &dirNode{r: r}
	n.refs.Store(1)
	return n, nil
}

func (d *dirNode) readFile(name string, buf *[]byte, max int64, hard bool) (data []byte, big *os.File, err error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, errNotRegular
	}
	f, err := d.r.Open(name)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if err := checkHandle(name, st, hard); err != nil {
		f.Close()
		if errors.Is(err, ErrHardLink) {
			return nil, nil, ErrHardLink
		}
		return nil, nil, errNotRegular
	}
	if st.Size() > max {
		return nil, f, nil
	}
	defer f.Close()
	*buf = (*buf)[:0]
	b := bytesBuffer{buf}
	if _, err := io.Copy(&b, io.LimitReader(f, max+1)); err != nil {
		return nil, nil, err
	}
	if int64(len(*buf)) > max {
		return nil, nil, errTooLarge
	}
	return *buf, nil, nil
}

type bytesBuffer struct{ b *[]byte }

func (w *bytesBuffer) Write(p []byte) (int, error) {
	*w.b = append(*w.b, p...)
	return len(p), nil
}

// stat returns what ListFiles reports of the entry name.
func (d *dirNode) stat(name string) (FileStat, bool) {
	fi, err := d.r.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return FileStat{}, false
	}
	return FileStat{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, true
}
