package agent

// Ending is the named reason a run stopped. A run always ends with one,
// returned as data, never as a crash.
type Ending string

// The endings a run can have; clients rely on these exact strings.
const (
	EndTurn            Ending = "end_turn"
	EndMaxTurns        Ending = "max_turns"
	EndMaxToolCalls    Ending = "max_tool_calls"
	EndRepeatedFailure Ending = "repeated_failure"
	EndEmptyResponse   Ending = "empty_response"
	EndMaxTokens       Ending = "max_tokens"
	EndRefusal         Ending = "refusal"
	// EndMalformedToolCall: the model wrote a tool call as text that could
	// not be run, twice in a row (provider/textcalls).
	EndMalformedToolCall Ending = "malformed_tool_call"
	// EndContextTooSmall: the system prompt, the tool schemas and the
	// user's prompt do not fit the model's context window.
	EndContextTooSmall Ending = "context_too_small"
	EndAborted         Ending = "aborted"
	EndError           Ending = "error"
)

// Result is what a run returns.
type Result struct {
	Reason    Ending `json:"reason"`
	Turns     int    `json:"turns"`
	ToolCalls int    `json:"toolCalls"`
	Usage     Usage  `json:"usage"`
	// Text is the final answer: the text of the last assistant message.
	Text string `json:"text"`
	// Error is the message kept for the user when Reason is EndError (and
	// the explanation for other non-success endings).
	Error string `json:"error,omitempty"`
	// Changes are the files the run changed, when the session keeps a
	// change journal (Config.Checkpoints); an empty list means none.
	Changes []FileChange `json:"changes,omitzero"`
}
