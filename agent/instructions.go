package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-lsp/agent-lsp/internal/text"
)

// InstructionsFile is the name of project instruction files.
const InstructionsFile = "AGENTS.md"

// maxInstructionBytes caps one AGENTS.md.
const maxInstructionBytes = 32 << 10

// instructionsName tags a pinned message holding an AGENTS.md; the
// directory follows the colon.
const instructionsName = "agents_md:"

// LoadInstructions reads AGENTS.md at the workspace root, for the system
// prompt. A missing file is not an error.
func LoadInstructions(root string) (string, error) {
	// Most workspaces have none: one lstat says so without opening the
	// root (the file itself, if any, is read inside it).
	if _, err := os.Lstat(filepath.Join(root, InstructionsFile)); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	text, err := readInstructions(root, ".")
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return text, err
}

func readInstructions(root, dir string) (string, error) {
	f, err := os.OpenInRoot(root, filepath.Join(dir, InstructionsFile))
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxInstructionBytes+1))
	if err != nil {
		return "", err
	}
	s := string(data)
	if len(data) > maxInstructionBytes {
		s = text.Cut(s, maxInstructionBytes) + "\n[… cut: AGENTS.md is over 32 KiB]"
	}
	return strings.TrimSpace(s), nil
}

// BuildSystemPrompt is the system prompt with the project's instructions
// (the root AGENTS.md) and the list of skills. Everything in it is stable
// for the whole session, so it heads the cached prefix.
func BuildSystemPrompt(root string, toolNames []string, instructions string, skills []Skill) string {
	var b strings.Builder
	b.WriteString(SystemPrompt(root, toolNames))
	b.WriteString(SkillsPrompt(skills))
	if instructions != "" {
		fmt.Fprintf(&b, "\nProject instructions from %s (follow them; the user's request wins where they conflict):\n<project-instructions>\n%s\n</project-instructions>\n", InstructionsFile, instructions)
	}
	return b.String()
}

// loadInstructions reads the AGENTS.md files, not yet read, of the
// directories between the root and each file the calls named, and adds
// them to the conversation as pinned messages after the results.
func (r *run) loadInstructions(ctx context.Context, calls []ToolCall) {
	root := r.a.cfg.Root
	if root == "" || ctx.Err() != nil {
		return
	}
	for _, c := range calls {
		for _, p := range callPaths(c.Arguments) {
			for _, dir := range instructionDirs(root, p) {
				if r.s.instructionsLoaded(dir) {
					continue
				}
				text, err := readInstructions(root, dir)
				if err != nil {
					// Remember misses too: each directory is looked at once.
					r.s.markInstructions(dir)
					continue
				}
				m := Message{Role: RoleUser, Name: instructionsName + dir, Content: fmt.Sprintf("[Project instructions from %s/%s, for the files under %s/. Follow them there; this message is added by agent-lsp, not written by the user.]\n<project-instructions>\n%s\n</project-instructions>", dir, InstructionsFile, dir, text)}
				r.s.markInstructions(dir)
				r.s.Pin(m)
				r.s.Append(m)
			}
		}
	}
}

// instructionDirs lists the directories from the root (excluded, its
// AGENTS.md is in the system prompt) down to the one holding path,
// slash-separated and relative; nil for a path outside the root.
func instructionDirs(root, path string) []string {
	rel := path
	if filepath.IsAbs(path) {
		var err error
		if rel, err = filepath.Rel(root, path); err != nil {
			return nil
		}
	}
	rel = filepath.Clean(rel)
	if !filepath.IsLocal(rel) {
		return nil
	}
	dir := filepath.ToSlash(filepath.Dir(rel))
	if dir == "." {
		return nil
	}
	parts := strings.Split(dir, "/")
	out := make([]string, len(parts))
	for i := range parts {
		out[i] = strings.Join(parts[:i+1], "/")
	}
	return out
}
