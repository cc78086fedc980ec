package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/agent-lsp/agent-lsp/provider"
)

func (p *Client) fail(status int, cause error, format string, args ...any) *provider.Error {
	return &provider.Error{BaseURL: p.cfg.BaseURL, Model: p.cfg.Model, StatusCode: status, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// startError describes a request that got no stream.
func (p *Client) startError(err error, at *attempts) (res error) {
	base, model := p.cfg.BaseURL, p.cfg.Model
	status, detail := 0, ""
	var se *statusError
	if errors.As(err, &se) {
		status, detail = se.status, detailText(bodyMessage(se.body))
	}
	tries := ""
	if at.n > 1 {
		tries = fmt.Sprintf(" after %d attempts", at.n)
	}
	if at.waitAsked > 0 {
		tries += fmt.Sprintf("; it asks to wait %s before trying again", at.waitAsked.Round(time.Second))
	}
	if p.cfg.OllamaNumCtx > 0 && status >= 400 && status < 500 && status != http.StatusTooManyRequests {
		// A proxy may pass /v1 only, or an old Ollama lack what we send.
		defer func() {
			if e, ok := res.(*provider.Error); ok {
				e.Msg += fmt.Sprintf(" (agent-lsp posted to Ollama's native %s to set num_ctx %d; ollama_native = false in the configuration uses /v1 instead)", p.transport.url, p.cfg.OllamaNumCtx)
			}
		}()
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
		return p.fail(0, errors.Join(provider.ErrIdleTimeout, err), "the server at %s sent nothing for %s", base, p.cfg.IdleTimeout)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return p.fail(0, err, "cannot reach the server at %s%s: %v", base, tries, uerr.Err)
	}
	return p.fail(0, err, "request to %s for model %q failed: %v", base, model, err)
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
