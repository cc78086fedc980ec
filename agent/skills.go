package agent

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agent-lsp/agent-lsp/internal/text"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Skill is a named set of instructions the model loads on demand with
// read_skill: .agents/skills/NAME/SKILL.md, whose front matter gives the
// name and a one-line description.
type Skill struct {
	Name        string
	Description string
	// Path is the SKILL.md file and Dir its directory, both relative to
	// Root, the workspace root.
	Path string
	Dir  string
	Root string
}

// SkillsDir is where a workspace keeps its skills.
const SkillsDir = ".agents/skills"

// maxSkillBytes caps one SKILL.md.
const maxSkillBytes = 64 << 10

// LoadSkills reads root/.agents/skills/*/SKILL.md. A skill without a name
// takes its directory's; one without a description is skipped, with an
// error saying so (the model could not know when to use it). Errors are
// for the user (doctor, warnings); the skills that loaded are returned.
func LoadSkills(root string) ([]Skill, []error) {
	// No .agents at all (most workspaces): one lstat, no root opened.
	if _, err := os.Lstat(filepath.Join(root, filepath.Dir(SkillsDir))); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, []error{err}
	}
	defer r.Close()
	entries, err := fs.ReadDir(r.FS(), SkillsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{err}
	}
	var skills []Skill
	var errs []error
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		rel := filepath.ToSlash(filepath.Join(SkillsDir, e.Name(), "SKILL.md"))
		data, err := fs.ReadFile(r.FS(), rel)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("skill %s: %w", rel, err))
			continue
		}
		meta, _ := frontMatter(string(data))
		s := Skill{Name: meta["name"], Description: meta["description"], Path: rel, Dir: filepath.ToSlash(filepath.Join(SkillsDir, e.Name())), Root: root}
		if s.Name == "" {
			s.Name = e.Name()
		}
		if s.Description == "" {
			errs = append(errs, fmt.Errorf("skill %s: no description in its front matter; skipped", rel))
			continue
		}
		if seen[s.Name] {
			errs = append(errs, fmt.Errorf("skill %s: another skill is named %q; skipped", rel, s.Name))
			continue
		}
		seen[s.Name] = true
		skills = append(skills, s)
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills, errs
}

// frontMatter parses a leading "---" block of "key: value" lines (the
// subset of YAML skills use) and returns it with the body after it.
func frontMatter(text string) (map[string]string, string) {
	meta := map[string]string{}
	text = strings.TrimPrefix(text, "\ufeff")
	if !strings.HasPrefix(text, "---") {
		return meta, text
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), maxSkillBytes)
	n := 0
	first := true
	for sc.Scan() {
		line := sc.Text()
		n += len(line) + 1
		if first {
			first = false
			if strings.TrimSpace(line) != "---" {
				return map[string]string{}, text
			}
			continue
		}
		if strings.TrimSpace(line) == "---" {
			return meta, text[min(n, len(text)):]
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		meta[strings.TrimSpace(k)] = v
	}
	return map[string]string{}, text
}

// SkillsPrompt is the part of the system prompt that lists the skills.
func SkillsPrompt(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nSkills: instructions for particular tasks. When a task matches one, load it with read_skill before you start.\n")
	for _, s := range skills {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, text.OneLine(s.Description, 0))
	}
	return b.String()
}

// ReadSkillParams are the arguments of read_skill.
type ReadSkillParams struct {
	Name string `json:"name" jsonschema:"The skill's name, as listed in the system prompt"`
}

func newReadSkill(skills []Skill) *tools.Tool {
	desc := "Load the instructions of a skill listed in the system prompt. Skills: " + skillNames(skills) + "."
	return tools.Define("read_skill", desc, true, func(ctx context.Context, p *ReadSkillParams) (tools.Result, error) {
		for _, s := range skills {
			if s.Name != strings.TrimSpace(p.Name) {
				continue
			}
			data, err := readSkillFile(s)
			if err != nil {
				return tools.Errorf("read_skill %s: %v", s.Name, err), nil
			}
			_, body := frontMatter(string(data))
			return tools.Result{Text: fmt.Sprintf("Skill %s (files it mentions are in %s):\n\n%s", s.Name, s.Dir, strings.TrimSpace(body))}, nil
		}
		return tools.Errorf("no skill named %q; the skills are: %s", p.Name, skillNames(skills)), nil
	})
}

// readSkillFile reads a skill at the time it is asked for, so that an
// edit made during the session is seen.
func readSkillFile(s Skill) ([]byte, error) {
	f, err := os.OpenInRoot(s.Root, s.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxSkillBytes))
}

func skillNames(skills []Skill) string {
	names := make([]string, len(skills))
	for i, s := range skills {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}
