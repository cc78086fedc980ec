package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// OpenAIConfig configures the adapter for an OpenAI-compatible server.
type OpenAIConfig struct {
	// BaseURL ends in /v1, e.g. http://localhost:11434/v1; the adapter
	// posts to BaseURL + "/chat/completions".
	BaseURL string
	// Model is the model name the server knows, e.g. "qwen3:8b".
	Model string
	// APIKey is sent as "Authorization: Bearer"; empty sends none.
	APIKey string
	// Headers are added to every request (and win over the defaults).
	Headers map[string]string
	// HTTPClient carries the requests; nil uses http.DefaultTransport. Its
	// Timeout, if set, bounds whole replies, so leave it 0 for streaming.
	HTTPClient *http.Client
	// MaxRetries bounds retries of 429, 5xx and failed connections:
	// 0 means 4, a negative value none.
	MaxRetries int
	// IdleTimeout is how long the server may send nothing, before the
	// response headers or inside the stream, before the request fails.
	// 0 means 120s.
	IdleTimeout time.Duration
	// RetryBaseDelay is the first backoff delay, doubled per retry and
	// jittered; 0 means 1s. Retry-After from the server wins.
	RetryBaseDelay time.Duration
}

// OpenAI is the Provider for servers that speak /v1/chat/completions with
// streaming: OpenAI, Ollama, llama.cpp, vLLM, OpenRouter, Groq and others.
type OpenAI struct {
	cfg       OpenAIConfig
	client    *openai.Client
	transport *transport
}

var _ Provider = (*OpenAI)(nil)

// NewOpenAI returns an adapter for the server cfg names.
func NewOpenAI(cfg OpenAIConfig) *OpenAI {
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = 4
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 120 * time.Second
	}
	if cfg.RetryBaseDelay <= 0 {
		cfg.RetryBaseDelay = time.Second
	}
	var hc http.Client
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	t := &transport{
		base:       base,
		headers:    maps.Clone(cfg.Headers),
		idle:       cfg.IdleTimeout,
		maxRetries: cfg.MaxRetries,
		baseDelay:  cfg.RetryBaseDelay,
		sleep:      sleepCtx,
	}
	hc.Transport = t
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = &hc
	// Blank lines between events count as "empty messages"; the default
	// limit of 300 ends long streams early. The idle timeout bounds a
	// server that only sends blank lines.
	oc.EmptyMessagesLimit = 1 << 30
	return &OpenAI{cfg: cfg, client: openai.NewClientWithConfig(oc), transport: t}
}

// Stream starts one reply. Retries happen inside, before any byte of the
// reply is read. Errors are *ProviderError (errors.Is ErrProvider), or the
// context's error when ctx ended.
func (p *OpenAI) Stream(ctx context.Context, req Request) (Stream, error) {
	probe := &wireProbe{}
	rctx, cancel := context.WithCancel(context.WithValue(ctx, probeKey{}, probe))
	creq := p.request(req)
	s, err := p.client.CreateChatCompletionStream(rctx, creq)
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, p.startError(err, probe)
	}
	return &openaiStream{p: p, ctx: ctx, rctx: rctx, cancel: cancel, req: creq, raw: s, probe: probe, acc: newAccumulator()}, nil
}

// request translates the harness's request to go-openai's.
func (p *OpenAI) request(req Request) openai.ChatCompletionRequest {
	out := openai.ChatCompletionRequest{
		Model:         p.cfg.Model,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		MaxTokens:     req.MaxTokens,
	}
	// Reasoning models (o1, gpt-5, ...) refuse max_tokens; go-openai checks.
	if openai.NewReasoningValidator().Validate(out) != nil {
		out.MaxTokens, out.MaxCompletionTokens = 0, req.MaxTokens
	}
	for _, m := range req.Messages {
		out.Messages = append(out.Messages, wireMessage(m))
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out.Tools = append(out.Tools, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		})
	}
	return out
}

// wireMessage translates one message. Reasoning is never sent back. Empty
// arguments become "{}" (servers parse them); empty content is filled in by
// the transport (go-openai omits it).
func wireMessage(m Message) openai.ChatCompletionMessage {
	w := openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content}
	switch m.Role {
	case RoleAssistant:
		for _, tc := range m.ToolCalls {
			args := tc.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			w.ToolCalls = append(w.ToolCalls, openai.ToolCall{
				ID:       tc.ID,
				Type:     openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: args},
			})
		}
	case RoleTool:
		w.ToolCallID = m.ToolCallID
	}
	return w
}

// ErrProvider is matched (errors.Is) by every error the adapter returns
// because the server or the connection failed, as opposed to the caller's
// context ending.
var ErrProvider = errors.New("model provider failed")

// ErrTruncated is matched by a *ProviderError for a stream that ended
// before the reply was complete.
var ErrTruncated = errors.New("stream ended before the reply was complete")

// ErrIdleTimeout is matched by a *ProviderError for a server that sent
// nothing for IdleTimeout.
var ErrIdleTimeout = errors.New("server sent nothing within the idle timeout")

// ProviderError is a failed request or stream, with a message meant for the
// user.
type ProviderError struct {
	BaseURL string
	Model   string
	// StatusCode is the HTTP status, 0 when the failure is not one.
	StatusCode int
	// Msg says what failed and what to do about it.
	Msg string
	// Err is the underlying cause, if any.
	Err error
}

func (e *ProviderError) Error() string { return e.Msg }

// Unwrap makes errors.Is match ErrProvider and the cause.
func (e *ProviderError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrProvider}
	}
	return []error{ErrProvider, e.Err}
}

func (p *OpenAI) fail(status int, cause error, format string, args ...any) *ProviderError {
	return &ProviderError{BaseURL: p.cfg.BaseURL, Model: p.cfg.Model, StatusCode: status, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// startError describes a request that got no stream.
func (p *OpenAI) startError(err error, probe *wireProbe) error {
	base, model := p.cfg.BaseURL, p.cfg.Model
	status, detail := httpFailure(err)
	tries := ""
	if n := probe.attempts.Load(); n > 1 {
		tries = fmt.Sprintf(" after %d attempts", n)
	}
	if d := time.Duration(probe.waitAsked.Load()); d > 0 {
		tries += fmt.Sprintf("; it asks to wait %s before trying again", d.Round(time.Second))
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return p.fail(status, err, "the server at %s rejected the API key for model %q (HTTP %d%s); set AGENT_LSP_API_KEY", base, model, status, detail)
	case status == http.StatusNotFound:
		return p.fail(status, err, "the server at %s answered 404 for model %q (HTTP 404%s): either the model is not there, or the base URL is wrong (it usually ends in /v1, e.g. http://localhost:11434/v1)", base, model, detail)
	case status == http.StatusTooManyRequests:
		return p.fail(status, err, "the server at %s is rate limiting requests for model %q (HTTP 429%s)%s", base, model, detail, tries)
	case status >= 500:
		return p.fail(status, err, "the server at %s failed for model %q (HTTP %d%s)%s", base, model, status, detail, tries)
	case status != 0:
		return p.fail(status, err, "the server at %s rejected the request for model %q (HTTP %d%s)", base, model, status, detail)
	case errors.Is(err, syscall.ECONNREFUSED):
		return p.fail(0, err, "nothing answers at %s (is Ollama running? set --base-url or AGENT_LSP_BASE_URL)", base)
	case errors.Is(err, errIdle):
		return p.fail(0, errors.Join(ErrIdleTimeout, err), "the server at %s sent nothing for %s", base, p.cfg.IdleTimeout)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return p.fail(0, err, "cannot reach the server at %s%s: %v", base, tries, uerr.Err)
	}
	return p.fail(0, err, "request to %s for model %q failed: %v", base, model, err)
}

// httpFailure extracts the status and the server's own message from a
// go-openai error.
func httpFailure(err error) (int, string) {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0 {
		return apiErr.HTTPStatusCode, detailText(apiErr.Message)
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode, detailText(bodyMessage(reqErr.Body))
	}
	return 0, ""
}

func detailText(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	return ": " + msg
}

// bodyMessage finds the message in an error body: {"error":{"message"}},
// {"error":"..."} (Ollama), {"message"} or {"detail"}; else the text.
func bodyMessage(body []byte) string {
	var b struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &b) == nil {
		if msg, ok := errorMessage(b.Error); ok {
			return msg
		}
		if b.Message != "" {
			return b.Message
		}
		if len(b.Detail) > 0 {
			var s string
			if json.Unmarshal(b.Detail, &s) == nil {
				return s
			}
			return string(b.Detail)
		}
	}
	return string(body)
}
