package tmpcheck

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRun: tests that leave a folder in the temporary directory fail the
// run, even when they passed; tests that clean up keep their status. (Not
// parallel: run sets TMPDIR for the process.)
func TestRun(t *testing.T) {
	var made string
	leaky := func() int {
		d, err := os.MkdirTemp("", "leaked-")
		if err != nil {
			t.Fatal(err)
		}
		made = d
		return 0
	}
	if code := run(leaky); code != 1 {
		t.Errorf("a leaked folder: exit %d, want 1", code)
	}
	if _, err := os.Stat(made); err == nil || filepath.Dir(made) == os.TempDir() {
		t.Errorf("the leak %s was not in a private directory removed afterwards", made)
	}
	clean := func() int {
		d, _ := os.MkdirTemp("", "x-")
		os.RemoveAll(d)
		return 3
	}
	if code := run(clean); code != 3 {
		t.Errorf("clean tests: exit %d, want theirs (3)", code)
	}
}

func TestFuzzWorker(t *testing.T) {
	if !fuzzWorker([]string{"x.test", "-test.fuzzworker", "-test.run=^$"}) || fuzzWorker([]string{"x.test", "-test.fuzz=F"}) {
		t.Error("fuzz worker arguments not told apart")
	}
}
