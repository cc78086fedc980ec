package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// ListModels asks an OpenAI-compatible server which models it serves
// (GET {baseURL}/models). Used by `agent-lsp doctor`.
func ListModels(ctx context.Context, client *http.Client, baseURL string, auth Auth) ([]string, error) {
	if client == nil {
		client = http.DefaultClient
	}
	body, err := probeGet(ctx, client, http.MethodGet, strings.TrimRight(baseURL, "/")+"/models", auth, nil)
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("GET %s/models: not an OpenAI model list: %v", baseURL, err)
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}
