module github.com/agent-lsp/agent-lsp

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/google/jsonschema-go v0.4.3
	mvdan.cc/sh/v3 v3.14.1
)

require (
	github.com/landlock-lsm/go-landlock v0.11.2
	github.com/sashabaranov/go-openai v1.43.0
	golang.org/x/sys v0.49.0
)

require kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
