package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/internal/text"
)

// console is what `agent-lsp run` shows a person: the answer on stdout,
// everything else (tool calls and their results, notices, the approval
// prompt, logs) on stderr. On a terminal both streams share one screen, so
// a notice first ends a half-written answer line: the two never share a
// line. While a tool call runs longer than a second, a terminal gets a
// live status line (elapsed time and the call, rewritten in place the way
// cargo and docker build do, erased when the result comes); any other
// stderr gets a plain line now and then, so a log shows the wait too.
type console struct {
	mu    sync.Mutex
	out   io.Writer
	err   io.Writer
	tty   bool // stderr is a terminal: the status line is drawn
	color bool
	width func() int
	// midLine: the answer on stdout stopped in the middle of a line.
	midLine bool
	// status: a status line is on the screen, to erase before writing.
	status bool
	// held > 0 while the approval prompt owns the screen: no status line.
	held int
	job  *progressJob
	// after is when the first status line shows, and the plain lines'
	// times; tests shorten nothing (they wait on what they read).
	after time.Duration
}

// progressJob is one running tool call's status line.
type progressJob struct {
	label string
	start time.Time
	stop  chan struct{}
	done  chan struct{}
	last  string // the last line of output so far (tool_output)
}

// newConsole writes to stdout and stderr; stderr decides about the status
// line, its width and the colours (off with NO_COLOR, TERM=dumb or no
// terminal).
func newConsole(stdout, stderr io.Writer) *console {
	c := &console{out: stdout, err: stderr, width: func() int { return 100 }, after: time.Second}
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		c.tty = true
		c.color = os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
		c.width = func() int {
			if w := termWidth(f); w > 0 {
				return w
			}
			return 80
		}
	}
	return c
}

// SGR codes of the few styles used.
const (
	styleBold   = "1"
	styleDim    = "2"
	styleRed    = "31"
	styleGreen  = "32"
	styleYellow = "33"
	styleCyan   = "36"
)

// paint wraps s in a colour when colours are on.
func (c *console) paint(style, s string) string {
	if !c.color || s == "" {
		return s
	}
	return "\x1b[" + style + "m" + s + "\x1b[0m"
}

// Text streams answer text to stdout.
func (c *console) Text(s string) {
	if s == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearStatus()
	io.WriteString(c.out, s)
	c.midLine = !strings.HasSuffix(s, "\n")
}

// EndAnswer ends a half-written answer line.
func (c *console) EndAnswer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endAnswer()
}

func (c *console) endAnswer() {
	if c.midLine {
		io.WriteString(c.out, "\n")
		c.midLine = false
	}
}

// Line writes one notice line to stderr, on a line of its own.
func (c *console) Line(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearStatus()
	c.endAnswer()
	io.WriteString(c.err, strings.TrimSuffix(s, "\n")+"\n")
}

// Write makes the console an io.Writer for the logger and the approval
// prompt: their text goes to stderr, off the answer's line and the status
// line.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearStatus()
	c.endAnswer()
	return c.err.Write(p)
}

// Hold erases the status line and keeps it off until release is called:
// the approval prompt asks in the middle of a tool call.
func (c *console) Hold() (release func()) {
	c.mu.Lock()
	c.clearStatus()
	c.held++
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			c.held--
			c.mu.Unlock()
		})
	}
}

// Start shows label as running once it has run for a second; Stop ends it.
func (c *console) Start(label string) {
	c.Stop()
	j := &progressJob{label: label, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	c.mu.Lock()
	c.job = j
	c.mu.Unlock()
	go c.follow(j)
}

// Output notes what the running call printed: the status line shows its
// last non-empty line, the way cargo and docker build do.
func (c *console) Output(out string) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return
	}
	c.mu.Lock()
	if c.job != nil {
		c.job.last = printable(text.OneLine(last, 0))
	}
	c.mu.Unlock()
}

// Stop ends the running call's progress and erases its status line.
func (c *console) Stop() {
	c.mu.Lock()
	j := c.job
	c.job = nil
	c.mu.Unlock()
	if j == nil {
		return
	}
	close(j.stop)
	<-j.done
	c.mu.Lock()
	c.clearStatus()
	c.mu.Unlock()
}

// follow redraws j's status line until it stops: on a terminal five times
// a second after the first second, elsewhere one plain line at 10 s, 30 s,
// 1 min and then every minute.
func (c *console) follow(j *progressJob) {
	defer close(j.done)
	wait := time.NewTimer(c.after)
	defer wait.Stop()
	select {
	case <-j.stop:
		return
	case <-wait.C:
	}
	if !c.tty {
		c.plainProgress(j)
		return
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for frame := 0; ; frame++ {
		c.draw(j, frame)
		select {
		case <-j.stop:
			return
		case <-tick.C:
		}
	}
}

func (c *console) plainProgress(j *progressJob) {
	marks := []time.Duration{10 * time.Second, 30 * time.Second, time.Minute}
	for next := 0; ; next++ {
		at := time.Minute * time.Duration(next-1)
		if next < len(marks) {
			at = marks[next]
		}
		t := time.NewTimer(time.Until(j.start.Add(at)))
		select {
		case <-j.stop:
			t.Stop()
			return
		case <-t.C:
		}
		c.mu.Lock()
		if c.job == j && c.held == 0 {
			c.endAnswer()
			fmt.Fprintf(c.err, "  … still running after %s: %s\n", elapsed(time.Since(j.start)), j.label)
		}
		c.mu.Unlock()
	}
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// draw rewrites the status line in place: it always fits one terminal
// row, or the carriage return could not erase it.
func (c *console) draw(j *progressJob, frame int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.job != j || c.held > 0 {
		return
	}
	c.endAnswer()
	label := j.label
	if j.last != "" {
		// The command keeps half the line, its last output the rest.
		label = clipRunes(label, max(20, c.width()/2)) + " · " + j.last
	}
	line := clipRunes(fmt.Sprintf("%s %s %s", spinner[frame%len(spinner)], elapsed(time.Since(j.start)), label), c.width()-1)
	io.WriteString(c.err, "\r\x1b[K"+c.paint(styleCyan, line))
	c.status = true
}

func (c *console) clearStatus() {
	if c.status {
		io.WriteString(c.err, "\r\x1b[K")
		c.status = false
	}
}

// elapsed is a short duration: 3.4s, 1m05s.
func elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// clipRunes cuts s to n runes, the last one an ellipsis.
func clipRunes(s string, n int) string {
	if n < 1 {
		n = 1
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
