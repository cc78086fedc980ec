// Package openai adapts servers that speak OpenAI's streaming
// /v1/chat/completions (OpenAI, Ollama, llama.cpp, vLLM, LM Studio,
// OpenRouter, Groq, ...) to the provider contract, and Ollama's native
// /api/chat where the context size must be set (ollama.go, ndjson.go).
//
// What go-openai (github.com/sashabaranov/go-openai) does here, and what
// it does not, decided by measurement:
//  1. It defines the request's wire types: each message is a
//     ChatCompletionMessage and each tool a Tool, marshalled with the
//     library's own encoders, and its reasoning-model validator decides
//     between max_tokens and max_completion_tokens.
//  2. It does not make the HTTP call. Its client marshals the whole
//     request on every turn; with a long history that was 43% of a
//     200-turn run's CPU (go-openai's marshal 16%, the re-marshal needed
//     to add the "content" key it omits 27%). The adapter instead
//     encodes each message once (request.go), sends the cached pieces as
//     the body, and owns retries, headers and the idle timeout (http.go).
//  3. It does not read the stream. Its reader drops error objects sent
//     inside the stream, counts keep-alive comments against a limit and
//     cannot tell "data: [DONE]" from a cut connection; servers also
//     disagree on tool-call deltas. sse.go reads the events and
//     accumulator.go assembles them, checked against 61 recorded streams
//     (corpus_test.go) and go-openai's own reader (reference_test.go).
package openai

import (
	"context"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/provider"
)

// Config configures the adapter for an OpenAI-compatible server.
type Config struct {
	// BaseURL ends in /v1, e.g. http://localhost:11434/v1; the adapter
	// posts to BaseURL + "/chat/completions".
	BaseURL string
	// Model is the model name the server knows, e.g. "qwen3:8b".
	Model string
	// APIKey is sent as "Authorization: Bearer"; empty sends none.
	APIKey string
	// Headers are added to every request (and win over the defaults).
	Headers map[string]string
	// HTTPClient carries the requests; nil uses a transport configured as
	// http.DefaultTransport, with a larger write buffer (newTransport). Its
	// Timeout, if set, bounds whole replies, so leave it 0 for streaming.
	HTTPClient *http.Client
	// Preconn, when set and HTTPClient is nil, is the connection dialled
	// ahead (Preconnect) that the first request takes.
	Preconn *Preconn
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
	// NoTextToolCalls turns off the recovery of tool calls written as
	// text (provider/textcalls): such replies are then plain answers.
	NoTextToolCalls bool
	// Server is the kind of server, as Probe found it (ServerOllama, ...),
	// so that messages name the right setting; empty when unknown.
	Server ServerKind
	// OllamaNumCtx, when positive, makes the adapter speak Ollama's native
	// POST /api/chat (BaseURL without its /v1) with options.num_ctx set to
	// it, since /v1/chat/completions cannot set the context size
	// (ollama.go). OllamaContext says what to set it to.
	OllamaNumCtx int
}

// Client is the Provider for one server and model.
type Client struct {
	cfg       Config
	transport *transport

	mu  sync.Mutex
	enc encoder
}

var _ provider.Provider = (*Client)(nil)

// New returns an adapter for the server cfg names.
func New(cfg Config) *Client {
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
	var hc *http.Client
	switch {
	case cfg.HTTPClient != nil:
		hc = cfg.HTTPClient
	case cfg.Preconn != nil:
		hc = cfg.Preconn.client()
	default:
		hc = defaultClient()
	}
	headers := map[string]string{
		"Content-Type":  "application/json",
		"Accept":        "text/event-stream",
		"Cache-Control": "no-cache",
	}
	if cfg.APIKey != "" {
		headers["Authorization"] = "Bearer " + cfg.APIKey
	}
	url := cfg.BaseURL + "/chat/completions"
	if cfg.OllamaNumCtx > 0 {
		url = strings.TrimSuffix(cfg.BaseURL, "/v1") + "/api/chat"
		headers["Accept"] = "application/x-ndjson"
	}
	maps.Copy(headers, cfg.Headers)
	t := &transport{
		client:     hc,
		url:        url,
		headers:    headers,
		idle:       cfg.IdleTimeout,
		maxRetries: cfg.MaxRetries,
		baseDelay:  cfg.RetryBaseDelay,
		sleep:      sleepCtx,
	}
	return &Client{cfg: cfg, transport: t, enc: encoder{numCtx: cfg.OllamaNumCtx}}
}

// path is the endpoint the adapter posts to, for messages.
func (p *Client) path() string {
	if p.cfg.OllamaNumCtx > 0 {
		return "/api/chat"
	}
	return "/chat/completions"
}

// endMarker says what marks a complete stream, for messages.
func (p *Client) endMarker() string {
	if p.cfg.OllamaNumCtx > 0 {
		return `no line with "done": true`
	}
	return "no finish_reason and no [DONE]"
}

// Stream starts one reply. Retries happen inside, before any byte of the
// reply is read. Errors are *provider.Error (errors.Is ErrProvider), or
// the context's error when ctx ended.
func (p *Client) Stream(ctx context.Context, req provider.Request) (provider.Stream, error) {
	p.mu.Lock()
	body := p.enc.body(p.cfg.Model, req)
	p.mu.Unlock()
	acc := newAccumulatorOpts(accOptions{
		specs:       req.Tools,
		textCalls:   !p.cfg.NoTextToolCalls,
		expectThink: reasoningModel(p.cfg.Model),
		hint:        textCallHint(p.cfg.Server, p.cfg.Model),
	})
	s := &stream{p: p, ctx: ctx, body: body, acc: acc, sent: req.Sent}
	if err := s.open(); err != nil {
		return nil, err
	}
	return s, nil
}
