module github.com/agent-lsp/agent-lsp

go 1.26.0

require github.com/google/jsonschema-go v0.4.3

require github.com/sashabaranov/go-openai v1.43.0
