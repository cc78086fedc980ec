package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/jsonw"
	"github.com/agent-lsp/agent-lsp/internal/rawfile"
)

// A transcript is the append-only record of a session: one JSON object a
// line (JSONL). It holds what is needed to resume the session and to
// replay its model turns: every message as it was appended, every
// rewrite of the history (stubs, compactions), pinned content, the todo
// list, usage and endings. It never holds the API key: request headers are
// not recorded, and every string equal to a secret given to the writer is
// replaced by [REDACTED] before it reaches the disk.
//
// A crash can leave the last line cut; LoadSession ignores it, and answers
// tool calls left without a result, so the session loads and continues.

// TranscriptVersion is written in the header of every transcript.
const TranscriptVersion = 1

// TranscriptHeader describes a new transcript.
type TranscriptHeader struct {
	Workspace string
	Model     string
}

// Transcript appends records to a session's file. Every record is written
// as it happens (a crash of the process loses nothing the kernel has); a
// second after a compaction or an ending the file's writeback is started,
// not waited for (see sync). A new transcript's file is created in the
// background (CreateTranscript): records written before it exists are
// encoded and kept in memory, and go first. The first error (creating,
// writing) is kept, the transcript stops writing, and Err reports it.
type Transcript struct {
	mu      sync.Mutex
	f       *os.File
	opened  chan struct{} // closed once the file is created or failed to be; nil: open from the start
	start   func()        // starts creating the file, once (CreateTranscript)
	pending []byte        // records written before the file exists
	path    string
	secrets []string
	err     error
	now     func() time.Time
	dirty   bool        // written since writeback was last started
	timer   *time.Timer // starts the writeback sync asked for
	told    bool        // takeErr reported err
}

// SessionsDir is where transcripts go: $XDG_STATE_HOME/agent-lsp/sessions,
// or ~/.local/state/agent-lsp/sessions.
func SessionsDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agent-lsp", "sessions"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state directory: %w", err)
	}
	return filepath.Join(home, ".local", "state", "agent-lsp", "sessions"), nil
}

// NewSessionID returns a new id that sorts by time: 20260102-150405-a1b2c3.
// The suffix only has to differ between sessions started in one second
// (a taken id is refused, never overwritten: O_EXCL), so it comes from
// math/rand, which the runtime seeds: crypto/rand's first read costs a
// fresh `agent-lsp run` about 0.05 ms before its request.
func NewSessionID() string {
	return fmt.Sprintf("%s-%06x", time.Now().UTC().Format("20060102-150405"), rand.Uint32()&0xffffff)
}

// TranscriptPath is the file of session id under dir.
func TranscriptPath(dir, id string) (string, error) {
	if !safeID(id) || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("bad session id %q", id)
	}
	return filepath.Join(dir, id+".jsonl"), nil
}

// CreateTranscript starts the transcript of a new session id under dir.
// secrets (the API key, header values) are scrubbed from every record.
// The file (and the directory, the first time) is created in the
// background once the session's first request is on its way (startFile)
// or something waits for the file, whichever comes first; records written
// until then are held. A new session's first request thus never waits for
// the file system: creating a file cost 0.3–0.9 ms of a one-turn
// `agent-lsp run` when it came before the request, and even in the
// background, with the run on one P (internal/singlep), 0.03–0.06 ms of a
// busy file system's time when it ran before the request was written. A
// file that cannot be created shows in Err, which Agent.Run reports at
// the turn's end.
func CreateTranscript(dir, id string, h TranscriptHeader, secrets ...string) (*Transcript, error) {
	path, err := TranscriptPath(dir, id)
	if err != nil {
		return nil, err
	}
	t := newTranscript(nil, path, secrets)
	t.opened = make(chan struct{})
	t.start = sync.OnceFunc(func() { go t.create() })
	t.write(Record{Type: recSession, Version: TranscriptVersion, ID: id, Workspace: h.Workspace, Model: h.Model})
	return t, nil
}

// create makes the file of a new transcript, and its directory the first
// time, and writes the records held until then.
func (t *Transcript) create() {
	defer close(t.opened)
	const flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL | os.O_APPEND
	f, err := rawfile.OpenFile(t.path, flags, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(t.path), 0o700); err == nil {
			f, err = rawfile.OpenFile(t.path, flags, 0o600)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		t.err = fmt.Errorf("transcript: %w", err)
		t.pending = nil
		return
	}
	t.f = f
	if len(t.pending) > 0 {
		if _, err := f.Write(t.pending); err != nil {
			t.err = fmt.Errorf("transcript: %w", err)
		}
		t.pending = nil
	}
}

// startFile starts creating the file of a new transcript, if nothing has
// yet. The loop calls it as it sends a request: a goroutine started then
// runs once the loop waits for the answer, on one P as well, after the
// transport's writer has sent the request.
func (t *Transcript) startFile() {
	if t != nil && t.start != nil {
		t.start()
	}
}

// wait returns once the file of a new transcript is created (or failed
// to be), starting its creation if nothing has.
func (t *Transcript) wait() {
	if t.opened != nil {
		t.startFile()
		<-t.opened
	}
}

// appendTranscript opens an existing transcript to continue it. A cut
// last line is dropped first, so the next record starts on its own line
// and the file stays readable.
func appendTranscript(path string, secrets []string) (*Transcript, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	if err := endLastLine(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("transcript: %w", err)
	}
	return newTranscript(f, path, secrets), nil
}

// endLastLine makes the file end with a newline: a last line that is a
// whole record gets one, a cut one is truncated away.
func endLastLine(f *os.File) error {
	data, err := os.ReadFile(f.Name())
	if err != nil || len(data) == 0 || data[len(data)-1] == '\n' {
		return err
	}
	i := bytes.LastIndexByte(data, '\n') + 1
	if json.Valid(data[i:]) {
		_, err := f.Write([]byte("\n"))
		return err
	}
	return f.Truncate(int64(i))
}

func newTranscript(f *os.File, path string, secrets []string) *Transcript {
	t := &Transcript{f: f, path: path, now: time.Now}
	for _, s := range secrets {
		// Short values would scrub ordinary words; keys are long.
		if len(s) >= 8 {
			t.secrets = append(t.secrets, s)
		}
	}
	return t
}

// Path is the transcript's file.
func (t *Transcript) Path() string { return t.path }

// Err returns the first error: the file not created, or a write.
func (t *Transcript) Err() error {
	if t == nil {
		return nil
	}
	t.wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// takeErr returns the first error once, for the loop to tell the user
// (Agent.Run); nil after that.
func (t *Transcript) takeErr() error {
	if t == nil {
		return nil
	}
	t.wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil || t.told {
		return nil
	}
	t.told = true
	return t.err
}

// Close closes the file. The writeback of what is not on the disk yet is
// left to the kernel (see sync).
func (t *Transcript) Close() error {
	if t == nil {
		return nil
	}
	t.wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timer != nil {
		t.timer.Stop()
	}
	if t.f == nil {
		return t.err
	}
	err := t.f.Close()
	t.f = nil
	return err
}

func (t *Transcript) write(rec Record) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	creating := false
	if t.f == nil && t.opened != nil {
		select {
		case <-t.opened: // closed since
		default:
			creating = true
		}
	}
	if t.err != nil || (t.f == nil && !creating) {
		return
	}
	rec.Time = t.now().UTC()
	line, err := t.encode(rec)
	if err != nil {
		t.err = err
		return
	}
	t.dirty = true
	if creating {
		t.pending = append(t.pending, line...)
		return
	}
	if _, err := t.f.Write(line); err != nil {
		t.err = fmt.Errorf("transcript: %w", err)
	}
}

// encode is rec's line, secrets scrubbed.
func (t *Transcript) encode(rec Record) ([]byte, error) {
	line, err := appendRecord(make([]byte, 0, recordSize(rec)), rec)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	return append(t.scrub(line), '\n'), nil
}

// scrub replaces each secret, raw or as JSON escapes it, by [REDACTED].
func (t *Transcript) scrub(line []byte) []byte {
	for _, s := range t.secrets {
		q := jsonw.AppendString(nil, s)
		esc := q[1 : len(q)-1]
		line = bytes.ReplaceAll(line, esc, []byte("[REDACTED]"))
		line = bytes.ReplaceAll(line, []byte(s), []byte("[REDACTED]"))
	}
	return line
}

// sync ends a step worth keeping (a turn's end, a compaction): a second
// later the writeback of the records so far is started, without waiting
// for the disk. A transcript is a log to resume from, and every record is
// written before the loop goes on, so a crash of agent-lsp loses nothing;
// a crash of the machine loses what the disk had not taken yet: at most
// a second's records in a session that goes on, the kernel's writeback
// delay (30 s by default) of a process that ends sooner. Waiting for
// fsync here cost every `agent-lsp run` about 1 ms after its answer, and
// even starting the writeback costs the file system's block allocation
// (0.1 ms), which a process that exits right after its turn (`agent-lsp
// run`) would wait for at its exit. (The edits to workspace files do
// wait: tools/disk_edit.go.)
func (t *Transcript) sync() {
	if t == nil {
		return
	}
	t.wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil || t.err != nil || !t.dirty {
		return
	}
	if t.timer == nil {
		t.timer = time.AfterFunc(writebackDelay, t.writebackDue)
	} else {
		t.timer.Reset(writebackDelay)
	}
}

// writebackDelay is how long after a step sync starts the writeback, with
// startWriteback (variables for the tests).
var (
	writebackDelay = time.Second
	startWriteback = writeback
)

// writebackDue starts the writeback of the records written so far, when
// sync's delay is over.
func (t *Transcript) writebackDue() {
	t.mu.Lock()
	f := t.f
	if f == nil || t.err != nil || !t.dirty {
		t.mu.Unlock()
		return
	}
	t.dirty = false
	t.mu.Unlock()
	err := startWriteback(f) // safe against a Close meanwhile: the fd stays held
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil && t.f == f && t.err == nil {
		t.err = fmt.Errorf("transcript: %w", err)
	}
}

func (t *Transcript) message(m Message) { t.write(Record{Type: recMessage, Message: &m}) }
func (t *Transcript) pin(m Message)     { t.write(Record{Type: recPin, Message: &m}) }
func (t *Transcript) system(text string) {
	t.write(Record{Type: recSystem, Message: &Message{Role: RoleSystem, Content: text}})
}
func (t *Transcript) todos(ts []Todo) {
	if ts == nil {
		ts = []Todo{}
	}
	t.write(Record{Type: recTodos, Todos: ts})
}
func (t *Transcript) stubs(s map[string]string) { t.write(Record{Type: recStubs, Stubs: s}) }
func (t *Transcript) spill(id, path string)     { t.write(Record{Type: recSpill, CallID: id, Path: path}) }
func (t *Transcript) usage(u Usage) {
	if u != (Usage{}) {
		t.write(Record{Type: recUsage, Usage: &u})
	}
}
func (t *Transcript) replace(ms []Message) {
	t.write(Record{Type: recReplace, Messages: ms})
	t.sync()
}
func (t *Transcript) end(r Result) {
	t.write(Record{Type: recEnd, Result: &r})
	t.sync()
}
