package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// What goes with a prompt: the document the user is looking at (its
// selection), and the files and folders they mentioned (@file, #buffer),
// all as the editor has them (an open document's unsaved text wins over
// the disk). It follows the prompt after contextSep, so a chat showing the
// history can show the prompt alone (promptOnly).

// contextSep starts the editor's context in a prompt.
const contextSep = "\n\n## Context from the editor\n"

// Bounds of the context: one file is included whole up to maxContextBytes;
// all of them together up to maxTotalContext; a folder lists at most
// maxListing entries.
const (
	maxContextBytes = 64 << 10
	maxTotalContext = 256 << 10
	maxListing      = 200
)

// promptOnly is a recorded prompt without the editor's context.
// It also takes a prompt flattened to one line (a session list's).
func promptOnly(content string) string {
	p, _, _ := strings.Cut(content, strings.TrimSpace(contextSep))
	// Prompts recorded before contextSep existed.
	p, _, _ = strings.Cut(p, "The user is looking at ")
	return strings.TrimSpace(p)
}

// withContext adds the document, the selection and the mentions.
func (s *Server) withContext(ctx context.Context, se *session, p PromptParams) string {
	var b strings.Builder
	budget := maxTotalContext
	if p.TextDocument != nil && p.TextDocument.URI != "" {
		s.addDocument(ctx, &b, se, p.TextDocument.URI, p.Range, true, &budget)
	}
	for _, c := range p.Context {
		if c.URI == "" {
			continue
		}
		if p.TextDocument != nil && c.URI == p.TextDocument.URI && c.Range == nil && p.Range == nil {
			continue // already there
		}
		s.addDocument(ctx, &b, se, c.URI, c.Range, false, &budget)
	}
	if b.Len() == 0 {
		return p.Prompt
	}
	return p.Prompt + contextSep + b.String()
}

// relPath is path relative to the root when it is inside it.
func (s *Server) relPath(path string) string {
	in := s.init.Load()
	if r, err := filepath.Rel(in.root, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}

// addDocument writes one file (or its range) or folder listing to b.
// looking says it is the document in front of the user.
func (s *Server) addDocument(ctx context.Context, b *strings.Builder, se *session, uri string, rng *Range, looking bool, budget *int) {
	in := s.init.Load()
	path := uriPath(uri)
	if path == "" {
		return
	}
	rel := s.relPath(path)
	var text string
	if d, ok := s.docs.byURI(uri); ok {
		text = d.text
	} else if fi, err := os.Stat(path); err == nil && fi.IsDir() && !looking {
		s.addListing(b, rel, budget)
		return
	} else if data, err := in.ws.ReadFile(ctx, rel); err == nil {
		text = string(data)
	} else {
		fmt.Fprintf(b, "\n%s could not be read: %v\n", rel, err)
		return
	}
	whole := len(text) <= maxContextBytes && len(text) <= *budget
	if whole && !filepath.IsAbs(rel) && (looking || rng == nil) {
		// The text at this version counts as read, for the
		// read-before-edit rule: the model saw it in the prompt.
		se.h.Reads.MarkRead(rel, []byte(text))
	}
	var sel string
	var a0, z0 int
	if rng != nil {
		m := NewMapper(text)
		a, z := m.Offset(in.enc, rng.Start), m.Offset(in.enc, rng.End)
		if a < z {
			sel, a0, z0 = text[a:z], int(rng.Start.Line)+1, int(rng.End.Line)+1
			if len(sel) > maxContextBytes {
				sel = sel[:maxContextBytes] + "\n[… selection cut]"
			}
		}
	}
	switch {
	case looking && whole:
		fmt.Fprintf(b, "\nThe user is looking at %s (as the editor shows it, including unsaved changes):\n```\n%s\n```\n", rel, text)
		*budget -= len(text)
	case looking:
		fmt.Fprintf(b, "\nThe user is looking at %s (%d bytes, too large to include; read the parts you need with read_file).\n", rel, len(text))
	case sel != "":
		fmt.Fprintf(b, "\nThe user mentioned %s, lines %d-%d:\n```\n%s\n```\n", rel, a0, z0, sel)
		*budget -= len(sel)
		return
	case whole:
		fmt.Fprintf(b, "\nThe user mentioned %s (as the editor has it, including unsaved changes):\n```\n%s\n```\n", rel, text)
		*budget -= len(text)
		return
	default:
		fmt.Fprintf(b, "\nThe user mentioned %s (%d bytes, too large to include; read the parts you need with read_file).\n", rel, len(text))
		return
	}
	if sel != "" {
		fmt.Fprintf(b, "\nThe selection (lines %d-%d):\n```\n%s\n```\n", a0, z0, sel)
	}
}

// addListing writes a folder's entries (one level, sorted, folders
// marked with a slash), inside the workspace only.
func (s *Server) addListing(b *strings.Builder, rel string, budget *int) {
	in := s.init.Load()
	clean, err := in.ws.Resolve(rel)
	if err != nil {
		fmt.Fprintf(b, "\n%s could not be listed: %v\n", rel, err)
		return
	}
	entries, err := os.ReadDir(filepath.Join(in.root, filepath.FromSlash(clean)))
	if err != nil {
		fmt.Fprintf(b, "\n%s could not be listed: %v\n", rel, err)
		return
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if n == ".git" {
			continue
		}
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	more := 0
	if len(names) > maxListing {
		more, names = len(names)-maxListing, names[:maxListing]
	}
	list := strings.Join(names, "\n")
	if more > 0 {
		list += fmt.Sprintf("\n[… %d more]", more)
	}
	fmt.Fprintf(b, "\nThe user mentioned the folder %s/; its entries:\n```\n%s\n```\n", strings.TrimSuffix(rel, "/"), list)
	*budget -= len(list)
}
