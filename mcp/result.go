package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/internal/text"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/tools"
)

// render turns a tools/call result into the text the model reads: text as
// it is, images and audio as a note (the model gets text only), resource
// links as one line naming the URI, embedded resources with their text,
// and structuredContent as JSON unless a text item already is that JSON
// (servers built with the SDKs repeat it there).
func render(res *sdk.CallToolResult) tools.Result {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %s; not shown: this session's model gets text only]", orUnknown(c.MIMEType), text.Size(int64(len(c.Data)))))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %s; not played: this session's model gets text only]", orUnknown(c.MIMEType), text.Size(int64(len(c.Data)))))
		case *sdk.ResourceLink:
			line := "[resource link: " + c.URI
			if c.Name != "" {
				line += " (" + c.Name + ")"
			}
			if c.MIMEType != "" {
				line += ", " + c.MIMEType
			}
			if c.Description != "" {
				line += ": " + clipLine(c.Description, 200)
			}
			parts = append(parts, line+"]")
		case *sdk.EmbeddedResource:
			r := c.Resource
			if r == nil {
				continue
			}
			switch {
			case r.Text != "":
				parts = append(parts, fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text))
			default:
				parts = append(parts, fmt.Sprintf("[resource %s: %s, %s of binary data, not shown]", r.URI, orUnknown(r.MIMEType), text.Size(int64(len(r.Blob)))))
			}
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, "[content: "+clipLine(string(b), 200)+"]")
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && !repeats(parts, b) {
			parts = append(parts, "structuredContent: "+string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" {
		text = "(no output)"
	}
	return tools.Result{Text: text, IsError: res.IsError}
}

// repeats reports whether one of the texts is the JSON b, whatever its
// spacing.
func repeats(parts []string, b []byte) bool {
	for _, p := range parts {
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(p)) == nil && bytes.Equal(buf.Bytes(), b) {
			return true
		}
		var v any
		if json.Unmarshal([]byte(p), &v) == nil {
			if c, err := json.Marshal(v); err == nil && bytes.Equal(c, b) {
				return true
			}
		}
	}
	return false
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

// clipLine is s on one line, cut to at most n bytes.
func clipLine(s string, n int) string { return text.Clip(text.OneLine(s, 0), n) }
