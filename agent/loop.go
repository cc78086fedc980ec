// Package agent runs the agent loop: call the model, run the tools it asks
// for, feed every result back, repeat until the model answers or a limit is
// hit. Rules:
//  1. every tool call recorded in the history gets exactly one result;
//  2. a run always ends with a named Ending, returned as data;
//  3. the loop never imports LSP or a model SDK: it sees a Provider and Tools;
//  4. the history sent only grows at its end, so the provider's prompt cache
//     keeps hitting, except when a batch of old results becomes stubs or the
//     conversation is compacted (context.go, compact.go); what changes every
//     turn goes after it and is never stored.
package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Tools runs tool calls for the loop; *tools.Dispatcher is one.
type Tools interface {
	// Specs lists the tools the model may call.
	Specs() []tools.Spec
	// Dispatch executes one call and always returns its result.
	Dispatch(ctx context.Context, call tools.Call) tools.Result
}

// Warner is implemented by Tools that start something when first listed
// (MCP servers): what went wrong since the last call becomes one warning
// event each, right after the run lists its tools.
type Warner interface {
	TakeWarnings() []string
}

// Config bounds a run. Zero values take the defaults.
type Config struct {
	// MaxTurns caps model requests per run (default 50).
	MaxTurns int
	// MaxToolCalls caps tool calls per run (default 200).
	MaxToolCalls int
	// MaxCallsPerMessage caps the calls run from one reply (default 64);
	// the rest are answered with an error asking the model to resend them.
	MaxCallsPerMessage int
	// MaxTokens caps each reply; 0 leaves it to the server.
	MaxTokens int
	// RepeatLimit is how many identical failing calls in a row end the run
	// with repeated_failure (default 3).
	RepeatLimit int

	// Context keeps long sessions within the window (context.go).
	Context ContextConfig
	// Spill keeps the full text of results that were cut or pruned, in
	// files the model may read back with read_file. Nil keeps none.
	Spill *tools.Spill
	// Root is the workspace root: AGENTS.md files in the directories of
	// the files the model works on are read from it and pinned. Empty
	// turns that off.
	Root string
	// Skills are offered through read_skill (skills.go).
	Skills []Skill
	// Volatile, if set, returns text that changes every turn (changed
	// files, the time). It goes in a message at the very end of each
	// request, after the todo list, and is never stored, so the cached
	// prefix stays the same.
	Volatile func() string
	// Subagent, if set, offers the task tool (subagent.go).
	Subagent *SubagentConfig
	// NoBuiltins offers only the given Tools: no write_todos, read_skill
	// or task (builtin.go). Subagents run this way.
	NoBuiltins bool
	// Checkpoints, if set, records what each run changes (checkpoints.go).
	Checkpoints Checkpoints
	// Notices are shown as warnings at the start of the agent's first run:
	// what the probe learnt about the endpoint that the user should know
	// (a small window, a model without declared tool support).
	Notices []string
}

func (c Config) withDefaults() Config {
	if c.MaxTurns <= 0 {
		c.MaxTurns = 50
	}
	if c.MaxToolCalls <= 0 {
		c.MaxToolCalls = 200
	}
	if c.MaxCallsPerMessage <= 0 {
		c.MaxCallsPerMessage = 64
	}
	if c.RepeatLimit <= 0 {
		c.RepeatLimit = 3
	}
	c.Context = c.Context.withDefaults()
	return c
}

// Agent runs sessions against one provider and one tool set.
type Agent struct {
	provider Provider
	tools    Tools
	cfg      Config
	est      *Estimator
	notices  sync.Once
}

// New returns an agent. tools may be nil for a tool-less chat.
func New(p Provider, t Tools, cfg Config) *Agent {
	return &Agent{provider: p, tools: t, cfg: cfg.withDefaults(), est: &Estimator{noWindowRule: cfg.Context.RejectsOverflow}}
}

// Estimator returns the agent's token estimator, calibrated by the
// server's counts.
func (a *Agent) Estimator() *Estimator { return a.est }

// run is the state of one Run call.
type run struct {
	a     *Agent
	s     *Session
	obs   Observer
	res   Result
	specs []tools.Spec
	tools Tools
	cc    ContextConfig
	// prompt is this run's request, kept through compactions.
	prompt *Message
	// sub collects the usage of subagents started by task calls.
	sub subUsage
	// warnedFull and warnedCut are set once the user was told compaction
	// cannot help, or that the server seems to cut the prompt.
	warnedFull, warnedCut bool
	// warnedText is set once the user was told tool calls arrive as text;
	// brokenCall after a broken one was answered with a correction
	// (textcalls.go).
	warnedText, brokenCall bool
	// prepared is set once the Checkpoints' Prepare was called.
	prepared bool
	streak   struct {
		key   string
		count int
	}
}

// Run adds prompt to the session and runs the loop until it ends. It is
// safe to call again on the same session to continue the conversation, but
// not concurrently.
func (a *Agent) Run(ctx context.Context, s *Session, prompt string, obs Observer) Result {
	if obs == nil {
		obs = func(Event) {}
	}
	r := &run{a: a, s: s, obs: obs, cc: a.cfg.Context}
	// A resumed session names spill files an earlier process wrote.
	for _, p := range s.spillPaths() {
		a.cfg.Spill.Adopt(p)
	}
	r.tools = r.builtins(a.tools)
	if r.tools != nil {
		r.specs = r.tools.Specs()
		if r.cc.Window < SmallWindow {
			r.specs = CompactSpecs(r.specs)
		}
	}
	a.notices.Do(func() {
		for _, n := range a.cfg.Notices {
			obs(Event{Type: EvWarning, Text: n})
		}
	})
	if w, ok := a.tools.(Warner); ok {
		for _, text := range w.TakeWarnings() {
			r.warn(text)
		}
	}
	cp := a.cfg.Checkpoints
	if cp != nil {
		if note := cp.BeginRun(s.ID, prompt); note != "" {
			s.Append(Message{Role: RoleUser, Name: undoNoticeName, Content: note})
		}
	}
	m := Message{Role: RoleUser, Content: prompt}
	if !s.hasRequest() {
		// The user's original request survives every compaction.
		s.Pin(m)
	}
	s.Append(m)
	r.prompt = &m
	if why := r.fitsAtStart(); why != "" {
		r.res = r.end(EndContextTooSmall, why)
	} else {
		r.res = r.loop(ctx)
	}
	if cp != nil {
		r.res.Changes = cp.EndRun(s.ID)
		if r.res.Changes == nil {
			r.res.Changes = []FileChange{}
		}
		obs(Event{Type: EvChanges, Changes: r.res.Changes})
	}
	res := r.res
	s.Transcript().end(res)
	if err := s.Transcript().takeErr(); err != nil {
		obs(Event{Type: EvWarning, Text: "this session is not recorded, so it cannot be resumed: " + err.Error()})
	}
	obs(Event{Type: EvEnd, Result: &res})
	return res
}

func (r *run) loop(ctx context.Context) Result {
	cfg := r.a.cfg
	nudged := false
	overflowed := false
	for {
		if ctx.Err() != nil {
			return r.end(EndAborted, "")
		}
		if r.res.Turns >= cfg.MaxTurns {
			return r.end(EndMaxTurns, fmt.Sprintf("stopped after %d model requests (max_turns)", cfg.MaxTurns))
		}
		r.res.Turns++
		end, err := r.stream(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return r.end(EndAborted, "")
			}
			// A window smaller than configured: shrink it, compact, retry
			// once.
			if !overflowed && !r.cc.Off && isContextOverflow(err) {
				overflowed = true
				r.warn("the prompt did not fit the model's context window; compacting and trying again")
				if err := r.overflow(ctx); err != nil {
					return r.end(EndAborted, "")
				}
				continue
			}
			return r.end(EndError, err.Error())
		}
		overflowed = false
		r.res.Usage = r.res.Usage.Add(end.Usage)
		r.s.Transcript().usage(end.Usage)
		u := r.res.Usage
		r.obs(Event{Type: EvUsage, Usage: &u})
		msg := end.Message
		msg.Role = RoleAssistant

		if end.StopReason == provider.StopRefusal || end.StopReason == provider.StopFilter {
			if msg.Content != "" {
				r.s.Append(msg)
				r.res.Text = msg.Content
			}
			why := end.Refusal
			if why == "" {
				why = "the provider refused to answer (" + end.RawStopReason + ")"
			}
			return r.end(EndRefusal, why)
		}

		if retry, ending, why := r.textCalls(end.TextCalls, msg); ending != "" {
			return r.end(ending, why)
		} else if retry {
			continue
		}

		if len(msg.ToolCalls) == 0 {
			if msg.Content == "" {
				if end.StopReason == provider.StopLength {
					return r.end(EndMaxTokens, "the reply was cut by the token limit before it said anything")
				}
				// An empty reply is not stored (some providers reject empty
				// assistant messages); the model is told once what it can do.
				if nudged {
					return r.end(EndEmptyResponse, "the model sent two empty replies in a row")
				}
				nudged = true
				r.warn("the model sent an empty reply; asking again")
				r.s.Append(Message{Role: RoleUser, Name: nudgeName, Content: r.emptyNudge()})
				continue
			}
			r.s.Append(msg)
			r.res.Text = msg.Content
			if end.StopReason == provider.StopLength {
				return r.end(EndMaxTokens, "the reply was cut by the token limit")
			}
			return r.end(EndTurn, "")
		}
		nudged = false
		r.prepare() // calls may come whole at the end (text tool calls)
		// Mark oversized calls by position: their ids change below.
		oversized := make([]bool, len(msg.ToolCalls))
		for i, c := range msg.ToolCalls {
			oversized[i] = slices.Contains(end.TruncatedCalls, c.ID)
		}
		r.s.assignIDs(msg.ToolCalls, r.res.Turns)
		r.s.Append(msg)
		if msg.Content != "" {
			r.res.Text = msg.Content
		}
		if ending, why := r.runCalls(ctx, msg.ToolCalls, oversized, end.StopReason == provider.StopLength); ending != "" {
			return r.end(ending, why)
		}
		r.loadInstructions(ctx, msg.ToolCalls)
		if r.res.ToolCalls >= cfg.MaxToolCalls {
			return r.end(EndMaxToolCalls, fmt.Sprintf("stopped after %d tool calls (max_tool_calls)", r.res.ToolCalls))
		}
	}
}

// stream makes one model request and forwards its deltas to the observer.
func (r *run) stream(ctx context.Context) (*MessageEnd, error) {
	r.prune()
	if err := r.maybeCompact(ctx); err != nil {
		return nil, err
	}
	msgs := r.s.Messages()
	if tail := r.volatile(); tail != "" {
		msgs = append(msgs, Message{Role: RoleUser, Content: tail})
	}
	// A new session's transcript file is made once the request is out,
	// while the model reads it.
	req := Request{Messages: msgs, Tools: r.specs, MaxTokens: r.a.cfg.MaxTokens, Sent: r.s.Transcript().startFile}
	st, err := r.a.provider.Stream(ctx, req)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var end *MessageEnd
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch ev.Type {
		case provider.EventTextDelta:
			r.obs(Event{Type: EvText, Text: ev.Text})
		case provider.EventReasoningDelta:
			r.obs(Event{Type: EvReasoning, Text: ev.Text})
		case provider.EventToolCallDelta:
			r.prepare()
		case provider.EventMessageEnd:
			if end != nil {
				return nil, errors.New("provider sent two message ends for one reply")
			}
			end = ev.End
		}
	}
	if end == nil {
		return nil, errors.New("provider stream ended without a message end")
	}
	if end.Usage.InputTokens > 0 && !r.a.est.Observe(req, end.Usage.InputTokens) && !r.warnedCut {
		r.warnedCut = true
		r.warn(r.cutWarning(end.Usage.InputTokens, RawTokens(req)))
	}
	return end, nil
}

// prepare calls the Checkpoints' Prepare the first time in the run that
// the model asks for a tool: a run answered in text never pays for it.
func (r *run) prepare() {
	if p, ok := r.a.cfg.Checkpoints.(Preparer); ok && !r.prepared {
		r.prepared = true
		p.Prepare()
	}
}

// end fills in the ending; why is kept for the user.
func (r *run) end(e Ending, why string) Result {
	r.res.Reason = e
	r.res.Error = why
	return r.res
}

// cutWarning says the server counted far fewer prompt tokens than were
// sent (Estimator.Observe): it cut the prompt to its window. On the first
// request the model has not seen the system prompt or the tool schemas,
// so its answer is not to be trusted; the warning comes before the loop
// acts on that reply.
func (r *run) cutWarning(counted, sent int) string {
	fix := r.cc.WindowHint
	if fix == "" {
		fix = "raise the server's context window (for Ollama, OLLAMA_CONTEXT_LENGTH or num_ctx) and set context_window to match"
	}
	first := ""
	if r.res.Turns == 1 {
		first = "This was the first request: the model answered without seeing all of it (the system prompt and tool schemas come first and are cut first), so do not trust this answer. "
	}
	return fmt.Sprintf("the server counted %d prompt tokens for a prompt of about %d: it is cutting the prompt to fit a smaller context window than agent-lsp assumes (%d tokens). %sFix: %s", counted, sent, r.cc.Window, first, fix)
}

func (r *run) warn(text string) {
	r.obs(Event{Type: EvWarning, Text: text})
}

func (r *run) emptyNudge() string {
	var b strings.Builder
	b.WriteString("Your last reply was empty: it had neither text nor a tool call. ")
	if len(r.specs) == 0 {
		b.WriteString("Answer the request in text.")
		return b.String()
	}
	b.WriteString("Either answer in text or call one of the tools you have: " + r.toolList() + ".")
	return b.String()
}

// toolList names the run's tools, for the nudges.
func (r *run) toolList() string {
	names := make([]string, len(r.specs))
	for i, s := range r.specs {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}
