package agent

// Checkpoints records what each run changes in the workspace, so that the
// user can see and take back a run (a turn): the harness gives the
// session's change journal. The loop only opens and closes the record.
type Checkpoints interface {
	// BeginRun opens the record of a run of session id on prompt. The text
	// it returns, when not empty, tells the model what the user undid
	// since its last run; it is sent before the prompt.
	BeginRun(sessionID, prompt string) string
	// EndRun closes the record and returns the files the run changed.
	EndRun(sessionID string) []FileChange
}

// FileChange is one file a run changed: kind is created, modified,
// deleted or renamed; Added and Removed count lines.
type FileChange struct {
	Path    string `json:"path"`
	From    string `json:"from,omitempty"`
	Kind    string `json:"kind"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// undoNoticeName marks the message that tells the model of an undo.
const undoNoticeName = "undo_notice"
