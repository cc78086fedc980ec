package changes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// session is one session's scanner of root over the workspace's store,
// its baseline taken. window is the timestamp granularity allowed for
// (racyWindow in use; 0 lets the tests trust files written just before).
func session(t *testing.T, root, store string, window time.Duration) *Scanner {
	t.Helper()
	s := NewScanner(root, store)
	s.tick = window
	t.Cleanup(func() { s.Close() })
	if err := s.Before(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return s
}

func tree(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	for i := range n {
		writeFile(t, root, fmt.Sprintf("d%d/f%d.txt", i%3, i), fmt.Sprintf("file %d\n", i))
	}
	return root
}

// A later session over an unchanged workspace reads no file, and what a
// command then changes is diffed against the content the first session
// stored.
func TestIndexSpansSessions(t *testing.T) {
	t.Parallel()
	root, store := tree(t, 30), filepath.Join(t.TempDir(), "baseline")
	if s := session(t, root, store, 0); s.reads != 30 {
		t.Fatalf("first session read %d files, want 30", s.reads)
	}
	s := session(t, root, store, 0)
	if s.reads != 0 {
		t.Fatalf("second session read %d files of an unchanged workspace", s.reads)
	}
	writeFile(t, root, "d1/f4.txt", "changed by the command\n")
	os.Remove(filepath.Join(root, "d2/f5.txt"))
	diffs, _, err := s.After(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diffs {
		got = append(got, fmt.Sprintf("%s:%q→%q", d.Path, d.Before, d.After))
	}
	want := `d1/f4.txt:"file 4\n"→"changed by the command\n" d2/f5.txt:"file 5\n"→""`
	if strings.Join(got, " ") != want {
		t.Errorf("diffs\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

// What the user changed between sessions is read again, whatever its
// size and modification time: the change time tells.
func TestIndexRereadsWhatChangedBetweenSessions(t *testing.T) {
	t.Parallel()
	root, store := tree(t, 10), filepath.Join(t.TempDir(), "baseline")
	session(t, root, store, 0).Close()
	p := filepath.Join(root, "d0/f3.txt")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	// Same size, same modification time: only the change time differs.
	writeFile(t, root, "d0/f3.txt", "FILE 3\n")
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "new.txt", "new\n")
	s := session(t, root, store, 0)
	if s.reads != 2 {
		t.Fatalf("read %d files, want the changed one and the new one", s.reads)
	}
	writeFile(t, root, "d0/f3.txt", "by the command\n")
	diffs, _, err := s.After(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) != 1 || string(diffs[0].Before) != "FILE 3\n" {
		t.Fatalf("diffs = %+v; want d0/f3.txt from the user's content", diffs)
	}
}

// A file changed just before the scan that read it could change again
// with the same times: it is not saved, so the next session reads it.
func TestIndexDoesNotSaveRacyFiles(t *testing.T) {
	t.Parallel()
	root, store := tree(t, 3), filepath.Join(t.TempDir(), "baseline")
	old := time.Now().Add(-time.Hour)
	for i := range 2 {
		p := filepath.Join(root, fmt.Sprintf("d%d/f%d.txt", i, i))
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	// The files' change times are now, so with the real window every
	// one of them is racy: none is saved, all are read again.
	session(t, root, store, racyWindow).Close()
	if s := session(t, root, store, racyWindow); s.reads != 3 {
		t.Fatalf("read %d files, want all 3 (all racy)", s.reads)
	}
	if idx := loadIndex(store, root); len(idx) != 0 {
		t.Errorf("racy entries saved: %v", idx)
	}
}

// A baseline cut short (the run ended) keeps what it read: the next
// session reads only the rest.
func TestIndexKeepsACutBaseline(t *testing.T) {
	t.Parallel()
	root, store := tree(t, 20), filepath.Join(t.TempDir(), "baseline")
	s := NewScanner(root, store)
	s.tick = 0
	defer s.Close()
	s.mu.Lock()
	_, _, err := s.scanLocked(cutAfter{s, 7}, nil)
	s.mu.Unlock()
	if err == nil || s.reads != 7 {
		t.Fatalf("cut scan: err %v after %d reads", err, s.reads)
	}
	if next := session(t, root, store, 0); next.reads != 13 {
		t.Fatalf("next session read %d files, want the 13 not read before", next.reads)
	}
}

// cutAfter is a context that ends once s has read n files.
type cutAfter struct {
	s *Scanner
	n int
}

func (c cutAfter) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c cutAfter) Done() <-chan struct{}       { return nil }
func (c cutAfter) Value(any) any               { return nil }
func (c cutAfter) Err() error {
	if c.s.reads >= c.n {
		return context.Canceled
	}
	return nil
}

// A damaged or foreign index is no index: every file is read, and the
// diffs are right.
func TestIndexDamaged(t *testing.T) {
	t.Parallel()
	const id = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	cases := map[string]func(root, good string) string{
		"empty":         func(root, good string) string { return "" },
		"garbage":       func(root, good string) string { return "\x00\xff not an index\n" },
		"other version": func(root, good string) string { return strings.Replace(good, "index 1", "index 9", 1) },
		"other root":    func(root, good string) string { return strings.Replace(good, root, root+"-elsewhere", 1) },
		"cut line":      func(root, good string) string { return good[:len(good)-30] },
		"bad id":        func(root, good string) string { return good + "XYZ\t1\t1\t1\t1\tf.txt\n" },
		"escape":        func(root, good string) string { return good + id + "\t1\t1\t1\t1\t../outside\n" },
		"absolute":      func(root, good string) string { return good + id + "\t1\t1\t1\t1\t/etc/passwd\n" },
		"unclean":       func(root, good string) string { return good + id + "\t1\t1\t1\t1\td0/../d1/f1.txt\n" },
		"negative size": func(root, good string) string { return good + id + "\t-1\t1\t1\t1\tf.txt\n" },
		"huge size":     func(root, good string) string { return good + id + "\t99999999999\t1\t1\t1\tf.txt\n" },
		"not a number":  func(root, good string) string { return good + id + "\t1\tnow\t1\t1\tf.txt\n" },
		"long line": func(root, good string) string {
			return good + id + "\t1\t1\t1\t1\t" + strings.Repeat("a", 100<<10) + "\n"
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root, store := tree(t, 6), filepath.Join(t.TempDir(), "baseline")
			session(t, root, store, 0).Close()
			good, err := os.ReadFile(filepath.Join(store, indexName))
			if err != nil || len(loadIndex(store, root)) != 6 {
				t.Fatalf("index not saved: %v", err)
			}
			if err := os.WriteFile(filepath.Join(store, indexName), []byte(damage(root, string(good))), 0o600); err != nil {
				t.Fatal(err)
			}
			s := session(t, root, store, 0)
			if s.reads != 6 {
				t.Fatalf("read %d files, want all 6", s.reads)
			}
			writeFile(t, root, "d2/f2.txt", "x\n")
			diffs, _, err := s.After(context.Background(), nil)
			if err != nil || len(diffs) != 1 || string(diffs[0].Before) != "file 2\n" {
				t.Fatalf("diffs = %+v, %v", diffs, err)
			}
			// The session's scan replaced the damaged index.
			if got := loadIndex(store, root); len(got) != 6 {
				t.Errorf("index after the session: %d entries, want 6", len(got))
			}
		})
	}
}

// Names the line format cannot hold are left out of the index (read
// each session); others, spaces and all, are kept.
func TestIndexNames(t *testing.T) {
	t.Parallel()
	root, store := t.TempDir(), filepath.Join(t.TempDir(), "baseline")
	for _, n := range []string{"a b.txt", "ünï cödé.txt", "tab\there.txt", "new\nline.txt", `"quoted".txt`} {
		writeFile(t, root, n, n)
	}
	session(t, root, store, 0).Close()
	idx := loadIndex(store, root)
	for _, n := range []string{"a b.txt", "ünï cödé.txt", `"quoted".txt`} {
		if _, ok := idx[n]; !ok {
			t.Errorf("%q not in the index", n)
		}
	}
	if len(idx) != 3 {
		t.Errorf("index = %v", idx)
	}
	if s := session(t, root, store, 0); s.reads != 2 {
		t.Errorf("second session read %d files, want the 2 names outside the index", s.reads)
	}
}

// Contents unused for a week are pruned, at most once a day, except
// those the index names (an unchanged file's content is never read, so
// never touched, again).
func TestPruneKeepsWhatTheIndexNames(t *testing.T) {
	t.Parallel()
	root, store := tree(t, 2), filepath.Join(t.TempDir(), "baseline")
	session(t, root, store, 0).Close()
	named := referenced(loadIndex(store, root))
	if len(named) != 2 {
		t.Fatalf("index names %d contents", len(named))
	}
	b := blobs{store}
	orphan, err := b.put([]byte("a content no file has any more"))
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-8 * 24 * time.Hour)
	for id := range named {
		os.Chtimes(b.path(id), old, old)
	}
	os.Chtimes(b.path(orphan), old, old)
	os.Remove(filepath.Join(store, "pruned"))
	session(t, root, store, 0).Close()
	for id := range named {
		if _, err := os.Stat(b.path(id)); err != nil {
			t.Errorf("named content pruned: %v", err)
		}
	}
	if _, err := os.Stat(b.path(orphan)); err == nil {
		t.Error("unused content not pruned")
	}
	// Within the day, no pass: an old unused content stays until the next.
	again, _ := b.put([]byte("another unused content"))
	os.Chtimes(b.path(again), old, old)
	session(t, root, store, 0).Close()
	if _, err := os.Stat(b.path(again)); err != nil {
		t.Errorf("pruned twice in a day: %v", err)
	}
}

// Sessions of one workspace running at once share the store and the
// index: each replaces the index whole, and every one stays usable.
func TestIndexConcurrentSessions(t *testing.T) {
	t.Parallel()
	root, store := tree(t, 40), filepath.Join(t.TempDir(), "baseline")
	done := make(chan *Scanner)
	for range 4 {
		go func() {
			s := NewScanner(root, store)
			s.tick = 0
			if err := s.Before(context.Background(), nil); err != nil {
				t.Error(err)
			}
			s.Close()
			done <- s
		}()
	}
	for range 4 {
		<-done
	}
	if idx := loadIndex(store, root); len(idx) != 40 {
		t.Fatalf("index after concurrent sessions: %d entries, want 40", len(idx))
	}
	if s := session(t, root, store, 0); s.reads != 0 {
		t.Errorf("a session after them read %d files", s.reads)
	}
	if left, _ := filepath.Glob(filepath.Join(store, "*.tmp")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
