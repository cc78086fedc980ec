package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Support says whether a model declares tool calling.
type Support string

// The answers a server can give.
const (
	SupportUnknown Support = ""
	SupportYes     Support = "yes"
	SupportNo      Support = "no"
)

// Endpoint is what the probe learnt about a server and one model.
type Endpoint struct {
	Server ServerKind
	// Window is the context window the model runs with, in tokens (0 when
	// the server does not say); WindowSource says where it came from.
	Window       int
	WindowSource string
	// NativeWindow is the context the model was made for, when the
	// server reports it apart from the one it runs with (Ollama).
	NativeWindow int
	// Tools says whether the model declares tool support (Ollama's
	// capabilities, LM Studio's tool_use, llama.cpp's template caps).
	Tools Support
}

// Probe asks the server behind an OpenAI-compatible base URL what it is,
// the model's context window and whether the model declares tool support.
// Every request carries auth. In order, the first that answers wins the
// server kind; the window comes from the first that knows it:
//
//  1. Ollama GET /api/ps: the context_length the loaded model runs with;
//  2. Ollama POST /api/show: capabilities ("tools"), num_ctx from the
//     parameters, else the model's own context_length (the server may run
//     it with less: OLLAMA_CONTEXT_LENGTH, 4k by default on small GPUs);
//  3. llama.cpp GET /props: n_ctx, and chat_template_caps;
//  4. LM Studio GET /api/v0/models: loaded_context_length or
//     max_context_length, and capabilities ("tool_use");
//  5. vLLM GET {baseURL}/models: max_model_len (owned_by "vllm").
//
// The error says how to set the window when no server reported one.
func Probe(ctx context.Context, client *http.Client, baseURL, model string, auth Auth) (Endpoint, error) {
	if client == nil {
		client = http.DefaultClient
	}
	var ep Endpoint
	answered := false // some probe got an HTTP answer
	probe := func(method, url string, body []byte) ([]byte, error) {
		data, err := probeGet(ctx, client, method, url, auth, body)
		answered = answered || err == nil || errors.Is(err, errStatus)
		return data, err
	}
	base := strings.TrimRight(baseURL, "/")
	root := strings.TrimSuffix(base, "/v1")
	if data, err := probe(http.MethodGet, root+"/api/ps", nil); err == nil && json.Valid(data) && strings.Contains(string(data), `"models"`) {
		ep.Server = ServerOllama
		if n := ollamaRunning(data, model); n > 0 {
			ep.Window, ep.WindowSource = n, "ollama /api/ps (the loaded model)"
		}
	}
	body, _ := json.Marshal(map[string]string{"model": model, "name": model})
	if data, err := probe(http.MethodPost, root+"/api/show", body); err == nil {
		var show struct {
			Capabilities []string `json:"capabilities"`
		}
		if json.Unmarshal(data, &show) == nil {
			ep.Server = ServerOllama
			if show.Capabilities != nil {
				ep.Tools = SupportNo
				if slices.Contains(show.Capabilities, "tools") {
					ep.Tools = SupportYes
				}
			}
			numCtx, native := ollamaWindows(data)
			ep.NativeWindow = native
			switch {
			case ep.Window > 0:
			case numCtx > 0:
				ep.Window, ep.WindowSource = numCtx, "ollama /api/show (num_ctx)"
			case native > 0:
				ep.Window, ep.WindowSource = native, sourceOllamaNative
			}
		}
	}
	if ep.Server == "" {
		if data, err := probe(http.MethodGet, root+"/props", nil); err == nil {
			if n := llamaCppWindow(data); n > 0 {
				ep.Server, ep.Window, ep.WindowSource = ServerLlamaCpp, n, "llama.cpp /props (n_ctx)"
				ep.Tools = llamaCppTools(data)
			}
		}
	}
	if ep.Server == "" {
		if data, err := probe(http.MethodGet, root+"/api/v0/models", nil); err == nil {
			if n, tools, ok := lmStudioModel(data, model); ok {
				ep.Server, ep.Window, ep.Tools = ServerLMStudio, n, tools
				ep.WindowSource = "lmstudio /api/v0/models"
			}
		}
	}
	if ep.Server == "" {
		if data, err := probe(http.MethodGet, base+"/models", nil); err == nil {
			if n, ok := vllmWindow(data, model); ok {
				ep.Server, ep.Window, ep.WindowSource = ServerVLLM, n, "vllm /v1/models (max_model_len)"
			}
		}
	}
	if ep.Window > 0 {
		return ep, nil
	}
	if ctx.Err() != nil {
		return ep, ctx.Err()
	}
	if !answered {
		return ep, fmt.Errorf("%s did not answer the probes of its context window", baseURL)
	}
	return ep, noWindow(baseURL, model)
}

// sourceOllamaNative is the WindowSource of a window that is the model's
// native context, reported by Ollama for a model not loaded: not
// necessarily the one it runs with (OllamaContext).
const sourceOllamaNative = "ollama /api/show (the model's context_length; the server may run it with less, see OLLAMA_CONTEXT_LENGTH)"

// noWindow is ErrNoWindow for model at baseURL. Its text is made when
// read: every run against such a server gets this error from the cached
// probe, and most only log it at debug level, which drops it.
func noWindow(baseURL, model string) error { return &noWindowError{baseURL, model} }

type noWindowError struct{ baseURL, model string }

func (e *noWindowError) Error() string {
	return fmt.Sprintf("%s does not report the context window of %s; set context_window in the configuration: %v", e.baseURL, e.model, ErrNoWindow)
}

func (e *noWindowError) Unwrap() error { return ErrNoWindow }

// ollamaWindows reads num_ctx from the parameters text and
// <arch>.context_length from model_info.
func ollamaWindows(data []byte) (numCtx, native int) {
	var show struct {
		Parameters string                     `json:"parameters"`
		ModelInfo  map[string]json.RawMessage `json:"model_info"`
	}
	if json.Unmarshal(data, &show) != nil {
		return 0, 0
	}
	for _, line := range strings.Split(show.Parameters, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			fmt.Sscan(f[1], &numCtx)
		}
	}
	for k, v := range show.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			var n float64
			if json.Unmarshal(v, &n) == nil && n > 0 {
				native = int(n)
			}
		}
	}
	return max(numCtx, 0), native
}

// llamaCppTools reads chat_template_caps.supports_tool_calls (newer
// llama-server builds); unknown when absent.
func llamaCppTools(data []byte) Support {
	var props struct {
		Caps map[string]any `json:"chat_template_caps"`
	}
	if json.Unmarshal(data, &props) != nil || props.Caps == nil {
		return SupportUnknown
	}
	if v, ok := props.Caps["supports_tool_calls"].(bool); ok {
		if v {
			return SupportYes
		}
		return SupportNo
	}
	return SupportUnknown
}

// lmStudioModel reads LM Studio's REST model list for model.
func lmStudioModel(data []byte, model string) (int, Support, bool) {
	var list struct {
		Data []struct {
			ID           string   `json:"id"`
			Type         string   `json:"type"`
			Loaded       float64  `json:"loaded_context_length"`
			Max          float64  `json:"max_context_length"`
			Capabilities []string `json:"capabilities"`
		} `json:"data"`
	}
	if json.Unmarshal(data, &list) != nil {
		return 0, "", false
	}
	for _, m := range list.Data {
		if m.ID != model {
			continue
		}
		n := int(m.Loaded)
		if n <= 0 {
			n = int(m.Max)
		}
		tools := SupportNo
		if slices.Contains(m.Capabilities, "tool_use") {
			tools = SupportYes
		}
		return n, tools, n > 0
	}
	return 0, "", false
}

// vllmWindow reads max_model_len for model from an OpenAI model list.
func vllmWindow(data []byte, model string) (int, bool) {
	var list struct {
		Data []struct {
			ID          string  `json:"id"`
			OwnedBy     string  `json:"owned_by"`
			MaxModelLen float64 `json:"max_model_len"`
		} `json:"data"`
	}
	if json.Unmarshal(data, &list) != nil {
		return 0, false
	}
	for _, m := range list.Data {
		if m.ID == model && m.MaxModelLen > 0 {
			return int(m.MaxModelLen), true
		}
	}
	return 0, false
}

// WindowSetting names the setting that sets the context window on a
// server kind, for messages to the user.
func WindowSetting(kind ServerKind) string {
	switch kind {
	case ServerOllama:
		return "start Ollama with OLLAMA_CONTEXT_LENGTH=32768 (or set PARAMETER num_ctx 32768 in a Modelfile and `ollama create` the model), then set context_window to match"
	case ServerLlamaCpp:
		return "start llama-server with a larger -c (e.g. -c 32768)"
	case ServerVLLM:
		return "start vLLM with a larger --max-model-len"
	case ServerLMStudio:
		return "raise the model's context length in LM Studio's load settings"
	}
	return "use a larger context window on the server and set context_window to match"
}
