package permission

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agent-lsp/agent-lsp/internal/tomlpos"
)

// ToolRules is one `[permissions.TOOL]` table. For bash the patterns are
// command globs over each simple command; for the file tools they are
// doublestar globs over workspace-relative paths.
type ToolRules struct {
	// Builtin, when set to false in the user's file, drops the built-in lists
	// so that the file states the rule set exactly. In a workspace file it
	// can only drop the built-in allow list.
	Builtin *bool `toml:"builtin,omitempty" json:"builtin,omitempty"`
	// Default is the verdict when no rule matches; Undecided means "not set".
	Default Verdict  `toml:"default,omitempty" json:"default,omitempty"`
	Allow   []string `toml:"allow,omitempty" json:"allow,omitempty"`
	Ask     []string `toml:"ask,omitempty" json:"ask,omitempty"`
	Deny    []string `toml:"deny,omitempty" json:"deny,omitempty"`
}

// Permissions is the `[permissions]` table: rules per tool name.
type Permissions map[string]ToolRules

// File is the part of a config file this package reads. A larger config
// type can embed Permissions under the same toml tag.
type File struct {
	Permissions Permissions `toml:"permissions"`
}

// Origin says who wrote a rule set, which decides what it may do.
type Origin int

// Origins of rule sets.
const (
	// FromUser rule sets may loosen and tighten.
	FromUser Origin = iota
	// FromWorkspace rule sets come from the repository being worked on and
	// can only tighten: their allow rules are ignored and their default can
	// only raise the user's.
	FromWorkspace
)

// RuleSet is the rules of one source.
type RuleSet struct {
	Source string // file name or "session", for reasons
	Origin Origin
	Tools  Permissions
}

// Config is what Load returns: the rule sets in the order they apply, and
// notes about rules that were read but ignored.
type Config struct {
	Sets  []RuleSet
	Notes []string
}

// KnownTools are the tool names the engine knows. Rules for other names are
// reported as errors, so that a typo cannot silently drop a deny list; a
// package adding a tool appends its name before loading configuration.
var KnownTools = []string{"bash", "write_file", "str_replace", "read_file", "glob", "grep"}

// Load reads the user's and the workspace's config files; either may be ""
// or missing. Unknown keys under [permissions] and invalid values are errors
// naming the file, the line and the key. Keys outside [permissions] belong to
// other parts of the configuration and are not checked here.
func Load(userFile, workspaceFile string) (Config, error) {
	var cfg Config
	var errs []error
	for _, f := range []struct {
		name   string
		origin Origin
	}{{userFile, FromUser}, {workspaceFile, FromWorkspace}} {
		if f.name == "" {
			continue
		}
		data, err := os.ReadFile(f.name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("read config: %w", err))
			continue
		}
		rs, notes, err := ParseRuleSet(f.name, data, f.origin)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cfg.Sets = append(cfg.Sets, rs)
		cfg.Notes = append(cfg.Notes, notes...)
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// ConfigError is a problem at a place in a config file.
type ConfigError struct {
	File string
	Line int // 0 when unknown
	Key  string
	Msg  string
}

func (e *ConfigError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Msg)
}

// ParseRuleSet decodes the [permissions] table of one TOML file and checks
// it. name is used in errors and reasons only.
func ParseRuleSet(name string, data []byte, origin Origin) (RuleSet, []string, error) {
	var f File
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return RuleSet{}, nil, &ConfigError{File: name, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
		}
		return RuleSet{}, nil, &ConfigError{File: name, Key: "permissions", Msg: err.Error()}
	}
	var errs []error
	for _, k := range md.Undecoded() {
		if len(k) == 0 || k[0] != "permissions" {
			continue // another part of the configuration owns it
		}
		errs = append(errs, &ConfigError{File: name, Line: tomlpos.KeyLine(data, k), Key: k.String(), Msg: "unknown key"})
	}
	var notes []string
	tools := make([]string, 0, len(f.Permissions))
	for t := range f.Permissions {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	for _, t := range tools {
		tr := f.Permissions[t]
		key := toml.Key{"permissions", t}
		if !known(t) {
			errs = append(errs, &ConfigError{File: name, Line: tomlpos.KeyLine(data, key), Key: key.String(),
				Msg: "unknown tool (known: " + strings.Join(KnownTools, ", ") + ")"})
			continue
		}
		for _, l := range []struct {
			name string
			pats []string
		}{{"allow", tr.Allow}, {"ask", tr.Ask}, {"deny", tr.Deny}} {
			for _, p := range l.pats {
				if msg := checkPattern(t, p); msg != "" {
					k := append(append(toml.Key{}, key...), l.name)
					errs = append(errs, &ConfigError{File: name, Line: tomlpos.KeyLine(data, k), Key: k.String(), Msg: msg})
				}
			}
		}
		if origin == FromWorkspace && len(tr.Allow) > 0 {
			notes = append(notes, fmt.Sprintf("%s:%d: %s.allow ignored: a workspace file can only tighten permissions",
				name, tomlpos.KeyLine(data, append(append(toml.Key{}, key...), "allow")), key))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return RuleSet{}, nil, err
	}
	return RuleSet{Source: name, Origin: origin, Tools: f.Permissions}, notes, nil
}

func known(tool string) bool {
	for _, k := range KnownTools {
		if k == tool {
			return true
		}
	}
	return false
}

// checkPattern returns why a rule pattern is unusable, or "".
func checkPattern(tool, p string) string {
	if strings.TrimSpace(p) == "" {
		return "empty pattern"
	}
	for _, r := range p {
		if r < 0x20 || hostileRune(r) {
			return fmt.Sprintf("pattern %q contains a control or invisible character", p)
		}
	}
	if tool == MCPTable {
		return checkMCPPattern(p)
	}
	if tool != "bash" && !validPathRule(p) {
		return fmt.Sprintf("pattern %q is not a valid path glob", p)
	}
	return ""
}
