package lsp

import "context"

// models answers agent/models: the endpoint's models (GET /models) with
// the windows probed so far, for the editor's model picker. A failed list
// still names the configured model, with the error.
func (s *Server) models(ctx context.Context, _ ModelsParams) (any, error) {
	ctx, done := s.detach(ctx)
	defer done()
	current, list, err := s.init.Load().factory.Models(ctx)
	res := ModelsResult{Current: current, Models: []ModelInfo{}}
	for _, m := range list {
		res.Models = append(res.Models, ModelInfo{ID: m.ID, ContextWindow: m.ContextWindow})
	}
	if err != nil {
		res.Error = err.Error()
	}
	return res, nil
}
