package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/agent-lsp/agent-lsp/changes"
	"github.com/agent-lsp/agent-lsp/internal/text"
	"github.com/agent-lsp/agent-lsp/tools"
)

// undoCmd is `agent-lsp undo`: takes back the files a session's turns
// changed, in the session's own workspace, from the change journal (never
// from git). Parts of files the user edited since are left as they are
// and named; the exit status is then 1.
func undoCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("undo", stderr)
	session := fs.String("session", "last", "the session: its id, a unique prefix of it, or \"last\"")
	turns := fs.String("turns", "1", "how many of the last turns not yet undone to take back, or \"all\"")
	turn := fs.Int("turn", 0, "take back this turn alone (its number in the list)")
	list := fs.Bool("list", false, "list the session's turns and the files each changed; undo nothing")
	describe(fs, "undo", stderr)
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		fs.Usage()
		return exitUsage
	}
	sel := changes.Selection{Turn: *turn}
	if *turns == "all" {
		sel.All = true
	} else if n, err := strconv.Atoi(*turns); err != nil || n < 1 {
		fmt.Fprintf(stderr, "agent-lsp undo: --turns %q: give a number of turns (1 or more) or \"all\"\n", *turns)
		return exitUsage
	} else {
		sel.Last = n
	}
	id, ws, err := sessionWorkspace(*session, "")
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp undo: %v\n", err)
		return exitUsage
	}
	if ws == "" {
		fmt.Fprintf(stderr, "agent-lsp undo: session %s has no recorded workspace\n", id)
		return exitUsage
	}
	j, err := changes.Open(changes.Dir(sessionsDir(), id))
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp undo: %v\n", err)
		return exitFail
	}
	defer j.Close()
	if *list {
		printTurns(stdout, j.Turns())
		return exitOK
	}
	disk, err := tools.NewDiskWorkspace(ws)
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp undo: %v\n", err)
		return exitUsage
	}
	defer disk.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	plan, err := j.Plan(ctx, sel, disk.ReadFile)
	if errors.Is(err, changes.ErrNothing) {
		fmt.Fprintf(stdout, "agent-lsp: session %s: %v\n", id, err)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp undo: %v\n", err)
		return exitFail
	}
	plan.Merge(changes.ApplyDisk(ctx, disk, plan))
	if err := j.Undone(plan.Turns, plan.Conflicts); err != nil {
		fmt.Fprintf(stderr, "agent-lsp undo: the files were changed but the journal was not updated: %v\n", err)
	}
	fmt.Fprintf(stdout, "agent-lsp: session %s, %s in %s: undid turn %s\n", id, plural(len(plan.Turns), "turn"), ws, joinInts(plan.Turns))
	for _, op := range plan.Ops {
		if !contains(plan.Reverted, op.Path) && !hasConflict(plan.Conflicts, op.Path) {
			continue
		}
		fmt.Fprintf(stdout, "  %s %s\n", opWord(op.Kind), printable(op.Path))
	}
	for _, c := range plan.Conflicts {
		fmt.Fprintf(stderr, "agent-lsp: kept %s: %s\n", printable(c.Path), c.Reason)
	}
	if len(plan.Conflicts) > 0 {
		return exitFail
	}
	return exitOK
}

func opWord(k changes.OpKind) string {
	switch k {
	case changes.OpCreate:
		return "restored"
	case changes.OpDelete:
		return "deleted "
	}
	return "reverted"
}

// printTurns lists a journal's turns for --list.
func printTurns(w io.Writer, turns []changes.Turn) {
	if len(turns) == 0 {
		fmt.Fprintln(w, "no turns recorded")
	}
	for _, t := range turns {
		mark := ""
		if t.Undone {
			mark = " (undone)"
		}
		fmt.Fprintf(w, "turn %d%s: %s\n", t.N, mark, printable(text.OneLine(t.Prompt, 70)))
		for _, f := range t.Files {
			fmt.Fprintf(w, "  %s\n", fileLine(f.Path, f.From, string(f.Kind), f.Added, f.Removed))
		}
		for _, s := range t.Ignored {
			fmt.Fprintf(w, "  %s\n", printable(s))
		}
	}
}

// fileLine is one changed file: "M a.go +2 -1".
func fileLine(path, from, kind string, added, removed int) string {
	letter := map[string]string{"created": "A", "modified": "M", "deleted": "D", "renamed": "R"}[kind]
	name := printable(path)
	if from != "" {
		name = printable(from) + " → " + name
	}
	return fmt.Sprintf("%s %s +%d -%d", letter, name, added, removed)
}

func joinInts(ns []int) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += strconv.Itoa(n)
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasConflict(cs []changes.Conflict, path string) bool {
	for _, c := range cs {
		if c.Path == path {
			return true
		}
	}
	return false
}
