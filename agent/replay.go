package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/internal/text"
	"github.com/agent-lsp/agent-lsp/provider"
)

// nudgeName tags the loop's own user messages (the empty-reply nudge), so
// that replay and listings tell them from the user's requests.
const nudgeName = "nudge"

// ErrReplayExhausted is returned by the replay provider when the loop
// asks for a turn the transcript does not have.
var ErrReplayExhausted = errors.New("replay: no more recorded model turns")

// ReplayDiff is one tool call whose result differs from the recording.
type ReplayDiff struct {
	// Run counts the user's requests from 1; Call counts the run's calls
	// from 1.
	Run       int    `json:"run"`
	Call      int    `json:"call"`
	Tool      string `json:"tool"`
	Arguments string `json:"arguments"`
	// Recorded and Got are the results; Missing says which side has none.
	Recorded      string `json:"recorded"`
	Got           string `json:"got"`
	RecordedError bool   `json:"recordedError,omitempty"`
	GotError      bool   `json:"gotError,omitempty"`
	Missing       string `json:"missing,omitempty"`
}

// ReplayReport is what Replay found.
type ReplayReport struct {
	Runs  int `json:"runs"`
	Turns int `json:"turns"`
	Calls int `json:"calls"`
	// Same counts the calls whose result matched.
	Same  int          `json:"same"`
	Diffs []ReplayDiff `json:"diffs"`
	// Endings are the replayed runs' endings next to the recorded ones.
	Endings []ReplayEnding `json:"endings"`
}

// ReplayEnding compares one run's ending.
type ReplayEnding struct {
	Recorded Ending `json:"recorded,omitempty"`
	Got      Ending `json:"got"`
}

// OK reports whether the replay matched the recording.
func (r *ReplayReport) OK() bool {
	if len(r.Diffs) > 0 {
		return false
	}
	for _, e := range r.Endings {
		if e.Recorded != "" && e.Recorded != e.Got {
			return false
		}
	}
	return true
}

// Replay runs the model turns recorded in the transcript at path again,
// against tools (the current workspace; they run for real), and compares
// every tool result with the recorded one. Each user request starts a
// run on one fresh session, as it did when recorded. Pruning and
// compaction are off (no model writes summaries), and the task tool is
// not offered (its subagent's turns are not recorded).
func Replay(ctx context.Context, path string, t Tools, cfg Config, obs Observer) (*ReplayReport, error) {
	recs, _, err := ReadTranscript(path)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || recs[0].Type != recSession {
		return nil, fmt.Errorf("%s: %w", path, errNoHeader)
	}
	var system string
	var runs []recordedRun
	for _, rec := range recs[1:] {
		switch {
		case rec.Type == recEnd && rec.Result != nil:
			if len(runs) > 0 {
				runs[len(runs)-1].end = rec.Result.Reason
			}
		case rec.Type != recMessage || rec.Message == nil:
		case rec.Message.Role == RoleSystem && len(runs) == 0:
			system = rec.Message.Content
		case rec.Message.Role == RoleUser && rec.Message.Name == "":
			runs = append(runs, recordedRun{prompt: rec.Message.Content})
		case len(runs) == 0:
		case rec.Message.Role == RoleAssistant:
			r := &runs[len(runs)-1]
			r.turns = append(r.turns, *rec.Message)
		case rec.Message.Role == RoleTool:
			r := &runs[len(runs)-1]
			r.results = append(r.results, *rec.Message)
		}
	}
	cfg.Context.Off = true
	cfg.Subagent = nil
	cfg.Checkpoints = nil // a replay changes nothing the user could undo
	if obs == nil {
		obs = func(Event) {}
	}
	rep := &ReplayReport{Runs: len(runs)}
	s := NewSession("replay", system)
	for i, run := range runs {
		p := &replayProvider{turns: run.turns}
		a := New(p, t, cfg)
		var got []Message
		res := a.Run(ctx, s, run.prompt, func(e Event) {
			if e.Type == EvToolEnd {
				got = append(got, Message{Role: RoleTool, Name: e.Tool.Name, ToolCallID: e.Tool.ID, Content: e.Tool.Result, IsError: e.Tool.IsError})
			}
			obs(e)
		})
		rep.Endings = append(rep.Endings, ReplayEnding{Recorded: run.end, Got: res.Reason})
		rep.Turns += p.used
		calls := callsOf(run.turns)
		for j := range max(len(run.results), len(got)) {
			rep.Calls++
			d := ReplayDiff{Run: i + 1, Call: j + 1}
			if j < len(calls) {
				d.Tool, d.Arguments = calls[j].Name, calls[j].Arguments
			}
			switch {
			case j >= len(got):
				d.Recorded, d.RecordedError, d.Missing = run.results[j].Content, run.results[j].IsError, "got"
			case j >= len(run.results):
				d.Got, d.GotError, d.Missing = got[j].Content, got[j].IsError, "recorded"
			default:
				d.Recorded, d.RecordedError = run.results[j].Content, run.results[j].IsError
				d.Got, d.GotError = got[j].Content, got[j].IsError
				if d.RecordedError == d.GotError && normalise(d.Recorded) == normalise(d.Got) {
					rep.Same++
					continue
				}
			}
			rep.Diffs = append(rep.Diffs, d)
		}
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
	}
	return rep, nil
}

type recordedRun struct {
	prompt  string
	turns   []Message
	results []Message
	end     Ending
}

func callsOf(turns []Message) []ToolCall {
	var calls []ToolCall
	for _, m := range turns {
		calls = append(calls, m.ToolCalls...)
	}
	return calls
}

// spillName matches the spill files named in results, whose names are
// random.
var spillName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\S*[A-Za-z0-9_-]+-\d{3,}-[0-9a-f]{8}\.txt`)
})

func normalise(s string) string { return spillName().ReplaceAllString(s, "<spill file>") }

// replayProvider answers each request with the next recorded assistant
// message.
type replayProvider struct {
	mu    sync.Mutex
	turns []Message
	used  int
}

func (p *replayProvider) Stream(ctx context.Context, _ Request) (provider.Stream, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.used >= len(p.turns) {
		return nil, ErrReplayExhausted
	}
	m := p.turns[p.used]
	p.used++
	m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
	stop := provider.StopEndTurn
	if len(m.ToolCalls) > 0 {
		stop = provider.StopToolCalls
	}
	var evs []provider.StreamEvent
	if m.Content != "" {
		evs = append(evs, provider.StreamEvent{Type: provider.EventTextDelta, Text: m.Content})
	}
	evs = append(evs, provider.StreamEvent{Type: provider.EventMessageEnd, End: &MessageEnd{Message: m, StopReason: stop, RawStopReason: string(stop)}})
	return &sliceStream{ctx: ctx, evs: evs}, nil
}

type sliceStream struct {
	ctx context.Context
	evs []provider.StreamEvent
}

func (s *sliceStream) Recv() (provider.StreamEvent, error) {
	if err := s.ctx.Err(); err != nil {
		return provider.StreamEvent{}, err
	}
	if len(s.evs) == 0 {
		return provider.StreamEvent{}, io.EOF
	}
	ev := s.evs[0]
	s.evs = s.evs[1:]
	return ev, nil
}

func (s *sliceStream) Close() error { return nil }

// Format renders the report for a terminal: one block per difference,
// then a summary line.
func (r *ReplayReport) Format() string {
	var b strings.Builder
	for _, d := range r.Diffs {
		fmt.Fprintf(&b, "run %d, call %d: %s %s\n", d.Run, d.Call, d.Tool, text.Clip(text.OneLine(d.Arguments, 0), 120))
		switch d.Missing {
		case "got":
			fmt.Fprintf(&b, "  not run in the replay; recorded: %s\n", text.Clip(text.OneLine(d.Recorded, 0), 200))
		case "recorded":
			fmt.Fprintf(&b, "  no recorded result; got: %s\n", text.Clip(text.OneLine(d.Got, 0), 200))
		default:
			fmt.Fprintf(&b, "  recorded%s: %s\n  got%s:      %s\n", errMark(d.RecordedError), text.Clip(text.OneLine(d.Recorded, 0), 200), errMark(d.GotError), text.Clip(text.OneLine(d.Got, 0), 200))
		}
	}
	for i, e := range r.Endings {
		if e.Recorded != "" && e.Recorded != e.Got {
			fmt.Fprintf(&b, "run %d ended with %s, recorded %s\n", i+1, e.Got, e.Recorded)
		}
	}
	fmt.Fprintf(&b, "replayed %d runs, %d model turns, %d tool calls: %d same, %d different\n", r.Runs, r.Turns, r.Calls, r.Same, len(r.Diffs))
	return b.String()
}

func errMark(isErr bool) string {
	if isErr {
		return " (error)"
	}
	return ""
}
