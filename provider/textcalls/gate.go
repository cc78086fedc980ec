package textcalls

import (
	"bytes"
	"strings"
)

// Gate holds back the streamed text that may be a tool-call envelope, so
// that a recovered call is not also shown as answer text. Text before a
// possible envelope streams at once. Held text is released at the end:
// as the answer when no call was recovered, dropped when one was.
//
// What is held:
//   - from a dedicated marker on (<tool_call>, [TOOL_CALLS], ...), found
//     anywhere, or a prefix of one at the end of the text;
//   - from a line that opens a fence that may hold a call (```json,
//     ```tool_code, a bare ```), or a line that may still become one;
//   - the whole reply when its first character is { or [ (a byte-order
//     mark and spaces before it do not count), and likewise the text
//     after a </think> (the unclosed thinking of a model not expected to
//     think, which is split only at the end);
//   - from ```json or ```tool_code in the middle of a line ("I'll read
//     it: ```json"), which Recover takes as a fence after a sentence.
//
// Once a marker, a complete fence line or a leading { or [ is seen the
// rest is held until the end; a partial line is released as soon as it
// cannot become a fence. The cost per pushed piece is proportional to
// the piece, so a long reply is not rescanned.
type Gate struct {
	buf     []byte
	emitted int  // bytes released
	held    bool // the rest waits for the end
	scanned int  // bytes searched for markers
	line    int  // start of the line not yet known to be safe
	lineOK  bool // the line at line opens no fence
	inFence bool // inside a code block that holds no call (```go)
	content bool // a non-space byte was seen (after start)
	start   int  // where the reply "starts": 0, or just after a </think>
}

// thinkClose ends unclosed thinking the gate may see as text.
const thinkClose = "</think>"

// midFences may open a call block after text on the same line.
var midFences = []string{"```json", "```JSON", "```tool_code"}

// gateMarkers are what Push looks for anywhere.
var gateMarkers = append(append([]string{}, markers...), midFences...)

// markers never appear in prose; they are searched for anywhere.
var markers = []string{
	dsCallsBegin, dsCallBegin, "<|tool▁calls▁begin|>", "<|tool▁call▁begin|>",
	mistralCalls, pythonTag, toolCallOpen, functionOpen,
}

// fences open a line that may start a call block.
var fences = []string{"```json", "```JSON", "```tool_code", "```tool_call", "```\n"}

var maxMarker = func() int {
	n := 0
	for _, m := range markers {
		n = max(n, len(m))
	}
	return n
}()

// Push adds a piece of text and returns what may be shown now.
func (g *Gate) Push(s string) string {
	newFrom := len(g.buf)
	g.buf = append(g.buf, s...)
	if g.held {
		return ""
	}
	safe := len(g.buf)
	from := max(0, g.scanned-maxMarker)
	hay := string(g.buf[from:])
	for _, m := range gateMarkers {
		if i := strings.Index(hay, m); i >= 0 && from+i < safe {
			safe, g.held = from+i, true
		}
	}
	if i := strings.LastIndex(hay, thinkClose); i >= 0 && from+i+len(thinkClose) > g.start {
		g.start, g.content = from+i+len(thinkClose), false
	}
	g.scanned = len(g.buf)
	if !g.held {
		for _, m := range gateMarkers {
			for k := min(len(m)-1, len(g.buf)); k > 0; k-- {
				if strings.HasSuffix(hay, m[:k]) {
					safe = min(safe, len(g.buf)-k)
					break
				}
			}
		}
	}
	if !g.content && !g.held {
		t := strings.TrimLeft(string(g.buf[g.start:]), " \t\r\n\ufeff")
		switch {
		case t == "":
			safe = min(safe, g.start) // only whitespace so far
		case t[0] == '{' || t[0] == '[':
			safe, g.held = min(safe, g.start), true
		default:
			g.content = true
		}
	}
	safe = min(safe, g.lines(newFrom))
	if safe <= g.emitted {
		return ""
	}
	out := string(g.buf[g.emitted:safe])
	g.emitted = safe
	return out
}

// lines checks the lines from g.line on and returns how much of the text
// they allow out. Only the first bytes of a line can open a fence, so a
// line is decided after at most fenceWindow bytes; then only its newline
// is looked for, in the bytes pushed since (newFrom on).
func (g *Gate) lines(newFrom int) int {
	for {
		if g.lineOK {
			from := max(g.line, newFrom)
			i := bytes.IndexByte(g.buf[from:], '\n')
			if i < 0 {
				return len(g.buf)
			}
			g.line, g.lineOK = from+i+1, false
			continue
		}
		rest := g.buf[g.line:]
		j := 0
		for j < len(rest) && j < fenceWindow && (rest[j] == ' ' || rest[j] == '\t') {
			j++
		}
		if j == len(rest) {
			return g.line // only indentation so far
		}
		head := rest[j:min(len(rest), j+fenceWindow)]
		complete := len(head) == fenceWindow
		if nl := bytes.IndexByte(head, '\n'); nl >= 0 {
			head, complete = head[:nl+1], true
		}
		if bytes.HasPrefix(head, []byte("```")) && (g.inFence || complete || len(head) > 3) {
			// A fence line: the close of a code block that holds no call,
			// or the opening of one (```go) that cannot hold one.
			if g.inFence || !isCallFence(head, complete) {
				g.inFence = !g.inFence
				g.lineOK = true
				continue
			}
		}
		for _, f := range fences {
			if g.inFence {
				break
			}
			if bytes.HasPrefix(head, []byte(f)) {
				g.held = true
				return g.line
			}
			if !complete && strings.HasPrefix(f, string(head)) {
				return g.line // may still become a fence
			}
		}
		g.lineOK = true
	}
}

const fenceWindow = 16

// isCallFence says whether a fence line may open a call block; for an
// incomplete line, whether it may still become one.
func isCallFence(head []byte, complete bool) bool {
	for _, f := range fences {
		if bytes.HasPrefix(head, []byte(f)) || !complete && strings.HasPrefix(f, string(head)) {
			return true
		}
	}
	return false
}

// Text is everything pushed so far.
func (g *Gate) Text() string { return string(g.buf) }

// Emitted is the text released so far.
func (g *Gate) Emitted() string { return string(g.buf[:g.emitted]) }
