//go:build !unix

package changes

import "io/fs"

const oNoFollow = 0

func statOf(fi fs.FileInfo) stat { return stat{size: fi.Size(), mtime: fi.ModTime().UnixNano()} }
