package changes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// tree20k writes a workspace of 20,000 small files in 400 directories,
// with a .gitignore'd build directory and a node_modules directory.
func tree20k(b *testing.B) string {
	root := b.TempDir()
	for d := range 400 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d/sub%d", d, d%7))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 50 {
			body := fmt.Sprintf("package p%d\n\n// file %d\nfunc F%d() int { return %d }\n", d, f, f, d*f)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", f)), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\n"), 0o644)
	for _, d := range []string{"build", "node_modules/x"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
		os.WriteFile(filepath.Join(root, d, "a"), []byte("a"), 0o644)
	}
	return root
}

// BenchmarkScan20k is the cost a bash call pays for change detection on a
// 20,000-file workspace: the scan before and the scan after (nothing
// changed), once the baseline is taken.
func BenchmarkScan20k(b *testing.B) {
	root := tree20k(b)
	s := NewScanner(root, filepath.Join(b.TempDir(), "baseline"))
	ctx := context.Background()
	if err := s.Before(ctx, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := s.Before(ctx, nil); err != nil {
			b.Fatal(err)
		}
		if _, _, err := s.After(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaseline20k is the first scan of a session (in the background,
// from the start of the first turn) in a workspace an earlier session
// scanned: one lstat per file, the index read, no file read. A workspace
// never scanned reads and stores every file once (BenchmarkFirstBaseline20k).
func BenchmarkBaseline20k(b *testing.B) {
	root := tree20k(b)
	store := filepath.Join(b.TempDir(), "baseline")
	// Files changed within racyWindow of a scan are read again next time:
	// let the tree age, then take the earlier session's baseline.
	time.Sleep(racyWindow)
	baseline(b, root, store)
	for b.Loop() {
		if reads := baseline(b, root, store); reads != 0 {
			b.Fatalf("a baseline over an unchanged workspace read %d files", reads)
		}
	}
}

// BenchmarkFirstBaseline20k is the first scan of a workspace never
// scanned: every file read and stored.
func BenchmarkFirstBaseline20k(b *testing.B) {
	root := tree20k(b)
	for b.Loop() {
		baseline(b, root, filepath.Join(b.TempDir(), "baseline"))
	}
}

// baseline takes a session's baseline of root with the store in store
// and returns how many files it read.
func baseline(b *testing.B, root, store string) int {
	s := NewScanner(root, store)
	defer s.Close()
	if err := s.Before(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	return s.reads
}

// BenchmarkJournalEdit is the cost the journal adds to one edit: both
// contents stored, one record appended.
func BenchmarkJournalEdit(b *testing.B) {
	j, err := Open(filepath.Join(b.TempDir(), "s.changes"))
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	j.Begin("bench")
	old := []byte(fmt.Sprintf("%4000s\n", "x"))
	i := 0
	for b.Loop() {
		i++
		next := fmt.Appendf(nil, "%s%d\n", old, i)
		if err := j.Change(fmt.Sprintf("f%d.go", i%100), "str_replace", old, next); err != nil {
			b.Fatal(err)
		}
	}
}
