package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Todo is one item of the session's todo list.
type Todo struct {
	Content string `json:"content" jsonschema:"What to do, in one short sentence"`
	Status  string `json:"status" enum:"pending,in_progress,completed" jsonschema:"pending, in_progress or completed"`
}

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// WriteTodosParams are the arguments of write_todos.
type WriteTodosParams struct {
	Todos []Todo `json:"todos" jsonschema:"The whole list, in order; it replaces the previous one"`
}

const writeTodosDescription = `Replace your todo list for this task with the given list (send the whole list every time).
Use it for work of three steps or more: write the steps first, mark one in_progress when you start it and completed as soon as it is done. The list is shown to the user and to you at the end of every turn, and it survives compaction.`

func newWriteTodos(r *run) *tools.Tool {
	return tools.Define("write_todos", writeTodosDescription, true, func(ctx context.Context, p *WriteTodosParams) (tools.Result, error) {
		for i, t := range p.Todos {
			if strings.TrimSpace(t.Content) == "" {
				return tools.Errorf("todos[%d] has no content; every item needs a short description", i), nil
			}
		}
		// The loop emits the todos event after the call, from its own
		// goroutine (this runs on the dispatcher's).
		r.s.SetTodos(p.Todos)
		done, doing := 0, 0
		for _, t := range p.Todos {
			switch t.Status {
			case TodoCompleted:
				done++
			case TodoInProgress:
				doing++
			}
		}
		return tools.Result{Text: fmt.Sprintf("Todo list updated: %d items, %d completed, %d in progress.", len(p.Todos), done, doing)}, nil
	})
}

// volatile is the text sent after the history in every request: the todo
// list and what Config.Volatile returns. It is never stored.
func (r *run) volatile() string {
	var b strings.Builder
	if todos := r.s.Todos(); len(todos) > 0 {
		b.WriteString("Your todo list (update it with write_todos):\n")
		b.WriteString(FormatTodos(todos))
	}
	if r.a.cfg.Volatile != nil {
		if v := strings.TrimSpace(r.a.cfg.Volatile()); v != "" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(v)
			b.WriteString("\n")
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "<context-update>\nThis message is added by agent-lsp at the end of every request; it is not from the user.\n" + b.String() + "</context-update>"
}

// FormatTodos renders a todo list as checkbox lines, as `agent-lsp run`
// prints it.
func FormatTodos(todos []Todo) string {
	var b strings.Builder
	for _, t := range todos {
		mark := "[ ]"
		switch t.Status {
		case TodoCompleted:
			mark = "[x]"
		case TodoInProgress:
			mark = "[~]"
		}
		fmt.Fprintf(&b, "%s %s\n", mark, t.Content)
	}
	return b.String()
}
