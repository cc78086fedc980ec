package changes

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The scan's index outlives the process, as git's index does: a file
// whose size, times and inode are those recorded, with the content stored
// under the recorded id, is not read again by the next session's
// baseline. Without it every session start read and hashed the whole
// workspace (20,000 files: about 2 s of CPU and disk, competing with a
// local model), even in runs that never call bash.
//
// An entry is saved only if the file's last change (ctime, or mtime where
// there is none) came racyWindow before the scan that read it began: a
// file written again within the filesystem's timestamp granularity of
// that read could keep the same times with other content, so such a file
// is read again by the next session (git's "racily clean" entries). The
// index holds facts ("this stat had this content"), not one process's
// view, so sessions sharing a workspace may each replace it: a later
// writer's entries are as true.

// indexName is the index's file in the content store's directory.
const indexName = "index"

// indexHeader starts the file, with the root.
const indexHeader = "agent-lsp scan index 1"

// racyWindow is the coarsest timestamp granularity allowed for: ext4 and
// most filesystems tick in jiffies, FAT in 2 s.
const racyWindow = 2 * time.Second

// maxIndex bounds what is read of an index (about 2 million files).
const maxIndex = 256 << 20

// loadIndex returns the trusted entries of the index in dir recorded for
// root; a missing, foreign or damaged index is no index.
func loadIndex(dir, root string) map[string]entry {
	// Not following a link, not waiting on a FIFO: a command may have
	// written the state directory when it lies inside the workspace.
	f, err := os.OpenFile(filepath.Join(dir, indexName), os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIndex {
		return nil
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	if !sc.Scan() {
		return nil
	}
	if sc.Text() != indexHeader+"\t"+root {
		return nil
	}
	out := map[string]entry{}
	for sc.Scan() {
		rel, e, ok := parseIndexLine(sc.Text())
		if !ok {
			return nil // damaged: read everything again rather than trust a part
		}
		out[rel] = e
	}
	if sc.Err() != nil {
		return nil
	}
	return out
}

// parseIndexLine reads "id size mtime ctime inode path", tab-separated.
func parseIndexLine(line string) (string, entry, bool) {
	f := strings.SplitN(line, "\t", 6)
	if len(f) != 6 || !validID(f[0]) || !validRel(f[5]) {
		return "", entry{}, false
	}
	var e entry
	var err [4]error
	e.id = f[0]
	e.size, err[0] = strconv.ParseInt(f[1], 10, 64)
	e.mtime, err[1] = strconv.ParseInt(f[2], 10, 64)
	e.ctime, err[2] = strconv.ParseInt(f[3], 10, 64)
	e.ino, err[3] = strconv.ParseUint(f[4], 10, 64)
	for _, x := range err {
		if x != nil {
			return "", entry{}, false
		}
	}
	if e.size < 0 || e.size > MaxBaseline {
		return "", entry{}, false
	}
	return f[5], e, true
}

// validID says whether id names a content: 64 lowercase hex digits.
func validID(id string) bool {
	if len(id) != 64 {
		return false
	}
	for i := range len(id) {
		if c := id[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// validRel says whether rel is a clean slash path inside the root that a
// line can hold.
func validRel(rel string) bool {
	return rel != "" && rel != "." && !path.IsAbs(rel) && path.Clean(rel) == rel &&
		rel != ".." && !strings.HasPrefix(rel, "../") && !strings.ContainsAny(rel, "\t\n\r\x00")
}

// racy says whether a file with stat st, read by a scan that began at
// start, may change again without its times changing, timestamps being
// as coarse as window.
func racy(st stat, start time.Time, window time.Duration) bool {
	return max(st.mtime, st.ctime) >= start.Add(-window).UnixNano()
}

// saveIndex replaces the index in dir with the entries of root whose
// content is kept and that are not racy (the others are read again
// anyway), written whole (a reader sees the old index or the new one).
func saveIndex(dir, root string, entries map[string]entry) error {
	if strings.ContainsAny(root, "\t\n\r") {
		return nil // a root no header line can hold: no index
	}
	rels := make([]string, 0, len(entries))
	for rel, e := range entries {
		if e.id != "" && !e.racy && validRel(rel) {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	var b bytes.Buffer
	b.Grow(len(rels) * 128)
	fmt.Fprintf(&b, "%s\t%s\n", indexHeader, root)
	for _, rel := range rels {
		e := entries[rel]
		b.WriteString(e.id)
		for _, n := range [...]int64{e.size, e.mtime, e.ctime} {
			b.WriteByte('\t')
			b.WriteString(strconv.FormatInt(n, 10))
		}
		b.WriteByte('\t')
		b.WriteString(strconv.FormatUint(e.ino, 10))
		b.WriteByte('\t')
		b.WriteString(rel)
		b.WriteByte('\n')
	}
	return writeWhole(filepath.Join(dir, indexName), b.Bytes())
}

// referenced are the contents entries name, which prune keeps however old.
func referenced(entries map[string]entry) map[string]bool {
	out := make(map[string]bool, len(entries))
	for _, e := range entries {
		if e.id != "" {
			out[e.id] = true
		}
	}
	return out
}
