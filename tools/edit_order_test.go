package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestEditsSerialised (M44): two edits of one file dispatched at the same
// time run one after the other, in order of arrival; the second sees the
// first's result, and each gets its own result.
func TestEditsSerialised(t *testing.T) {
	t.Parallel()
	e := newEditEnv(t, map[string]string{"f.txt": "one\n"})
	d := NewDispatcher(NewRegistry(FileTools(e.ed, e.reads, nil)...), WithLogger(quietLogger()))
	ctx := context.Background()
	if res := d.Dispatch(ctx, Call{ID: "r", Name: "read_file", Arguments: `{"path":"f.txt"}`}); res.IsError {
		t.Fatal(res.Text)
	}
	tail := func() chan struct{} {
		e.reads.mu.Lock()
		defer e.reads.mu.Unlock()
		return e.reads.tails["f.txt"]
	}
	waitTail := func(not chan struct{}) chan struct{} {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if c := tail(); c != nil && c != not {
				return c
			}
		}
		t.Fatal("call not queued")
		return nil
	}
	gate := make(chan struct{})
	e.ed.gate = gate // the first edit stalls in the editor
	results := make([]Result, 3)
	var wg sync.WaitGroup
	calls := []Call{
		{ID: "1", Name: "str_replace", Arguments: `{"path":"f.txt","old_str":"one","new_str":"two"}`},
		{ID: "2", Name: "str_replace", Arguments: `{"path":"f.txt","old_str":"two","new_str":"three"}`},
		{ID: "3", Name: "write_file", Arguments: `{"path":"f.txt","content":"three\nfour\n"}`},
	}
	var last chan struct{}
	for i, c := range calls {
		wg.Go(func() { results[i] = d.Dispatch(ctx, c) })
		last = waitTail(last)
	}
	close(gate)
	wg.Wait()
	for i, r := range results {
		if r.IsError {
			t.Errorf("call %d: %s", i+1, r.Text)
		}
	}
	if !strings.Contains(results[0].Text, "     1\ttwo") || !strings.Contains(results[1].Text, "     1\tthree") || !strings.Contains(results[2].Text, "Replaced f.txt") {
		t.Fatalf("results out of order:\n%v", results)
	}
	if got := e.content(t, "f.txt"); got != "three\nfour\n" {
		t.Fatalf("file %q", got)
	}
}

// TestEditsParallel runs many edits of one file at once: every one lands,
// none is lost to a conflict.
func TestEditsParallel(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, "m%02d\n", i)
	}
	e := newEditEnv(t, map[string]string{"f.txt": b.String()})
	d := NewDispatcher(NewRegistry(FileTools(e.ed, e.reads, nil)...), WithLogger(quietLogger()))
	e.readFile(t, "f.txt")
	var wg sync.WaitGroup
	results := make([]Result, 20)
	for i := range 20 {
		wg.Go(func() {
			results[i] = d.Dispatch(context.Background(), Call{ID: fmt.Sprint(i), Name: "str_replace",
				Arguments: fmt.Sprintf(`{"path":"f.txt","old_str":"m%02d","new_str":"done %02d"}`, i, i)})
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.IsError {
			t.Errorf("edit %d: %s", i, r.Text)
		}
	}
	got := e.content(t, "f.txt")
	for i := range 20 {
		if !strings.Contains(got, fmt.Sprintf("done %02d\n", i)) {
			t.Fatalf("edit %d lost:\n%s", i, got)
		}
	}
}
