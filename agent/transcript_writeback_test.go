package agent

import (
	"os"
	"testing"
	"time"
)

// TestWritebackAfterStep: steps arm one writeback, started when the delay
// after the last step ends, for a transcript that stays open; one closed
// before the delay leaves it to the kernel; a failed writeback shows in
// Err.
func TestWritebackAfterStep(t *testing.T) {
	calls := make(chan *os.File, 4)
	fail := false
	defer func(d time.Duration, w func(*os.File) error) { writebackDelay, startWriteback = d, w }(writebackDelay, startWriteback)
	writebackDelay = time.Hour // the test fires the timer itself
	startWriteback = func(f *os.File) error {
		calls <- f
		if fail {
			return os.ErrInvalid
		}
		return nil
	}
	dir := t.TempDir()
	none := func(why string) {
		t.Helper()
		select {
		case <-calls:
			t.Fatal(why)
		default:
		}
	}

	tr, err := CreateTranscript(dir, "open-1", TranscriptHeader{Workspace: "/ws", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	tr.message(Message{Role: RoleUser, Content: "hi"})
	none("a record without a step was written back")
	tr.end(Result{Reason: EndTurn})
	tr.end(Result{Reason: EndTurn})
	none("a step was written back before its delay")
	tr.timer.Reset(0) // the delay ends
	if f := <-calls; f == nil {
		t.Fatal("no file written back")
	}
	tr.sync() // nothing written since
	if tr.timer.Stop() {
		t.Error("a step with nothing new armed a writeback")
	}
	none("two steps before the delay were written back twice")

	fail = true
	tr.message(Message{Role: RoleUser, Content: "more"})
	tr.writebackDue()
	<-calls
	if tr.Err() == nil {
		t.Error("a failed writeback does not show in Err")
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}

	fail = false
	tr, err = CreateTranscript(dir, "closed-1", TranscriptHeader{Workspace: "/ws", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	tr.end(Result{Reason: EndTurn})
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if tr.timer.Stop() {
		t.Error("Close leaves the writeback's timer running")
	}
	tr.writebackDue() // as if the timer fired while Close ran
	none("a closed transcript was written back")
	if _, err := os.Stat(tr.Path()); err != nil {
		t.Fatal(err)
	}
}
