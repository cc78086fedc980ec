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

// Preparer is a Checkpoints with work to do before a run's first command
// (the harness takes a baseline of the workspace, to tell what a command
// changed): the loop calls Prepare once per run, as soon as the model
// starts asking for a tool, so the work overlaps the rest of the reply
// and the calls before a command, and a run answered in text never pays
// for it.
type Preparer interface {
	Prepare()
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
