package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"

	"go.lsp.dev/uri"
)

type textDocumentItem struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
	Text    string `json:"text"`
}

type versionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
}

// uriPath returns the clean absolute file path of a file URI, or "".
func uriPath(u string) string {
	if _, err := uri.Parse(u); err != nil {
		return ""
	}
	if uri.URI(u).Scheme() != "file" {
		return ""
	}
	return filepath.Clean(uri.URI(u).FsPath())
}

func (s *Server) didOpen(_ context.Context, params json.RawMessage) error {
	var p struct {
		TextDocument textDocumentItem `json:"textDocument"`
	}
	if err := decode(params, &p); err != nil {
		return err
	}
	if p.TextDocument.URI == "" {
		return errors.New("didOpen without a uri")
	}
	d := p.TextDocument
	s.docs.open(d.URI, uriPath(d.URI), d.Version, d.Text)
	return nil
}

func (s *Server) didChange(_ context.Context, params json.RawMessage) error {
	var p struct {
		TextDocument   versionedTextDocumentIdentifier `json:"textDocument"`
		ContentChanges []contentChange                 `json:"contentChanges"`
	}
	if err := decode(params, &p); err != nil {
		return err
	}
	return s.docs.change(s.init.Load().enc, p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges)
}

func (s *Server) didClose(_ context.Context, params json.RawMessage) error {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if err := decode(params, &p); err != nil {
		return err
	}
	s.docs.close(p.TextDocument.URI)
	return nil
}
