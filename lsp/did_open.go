package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

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
	var p protocol.DidOpenTextDocumentParams
	if err := decodeLSP(params, &p); err != nil {
		return err
	}
	if p.TextDocument.URI == "" {
		return errors.New("didOpen without a uri")
	}
	d := p.TextDocument
	s.docs.open(string(d.URI), uriPath(string(d.URI)), d.Version, d.Text)
	return nil
}

func (s *Server) didChange(_ context.Context, params json.RawMessage) error {
	// contentChanges stay our own type: protocol's is a union that costs a
	// second decoding pass per change, and didChange is the hot path.
	var p struct {
		TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
		ContentChanges []contentChange                          `json:"contentChanges"`
	}
	if err := decode(params, &p); err != nil {
		return err
	}
	return s.docs.change(s.init.Load().enc, string(p.TextDocument.URI), p.TextDocument.Version, p.ContentChanges)
}

func (s *Server) didClose(_ context.Context, params json.RawMessage) error {
	var p protocol.DidCloseTextDocumentParams
	if err := decodeLSP(params, &p); err != nil {
		return err
	}
	s.docs.close(string(p.TextDocument.URI))
	return nil
}
