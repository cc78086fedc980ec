package agent

import (
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/provider"
)

// textCalls handles a reply whose tool calls were written as text
// (provider.TextCalls). Recovered calls run like any other; the user is
// told once per run that the server setup is off. A broken envelope gets
// one corrective message; a second one in a row ends the run. It reports
// whether the loop should ask the model again (the reply was a broken
// envelope and was answered with a correction), or the ending to stop
// with.
func (r *run) textCalls(tc *provider.TextCalls, msg Message) (retry bool, ending Ending, why string) {
	if tc == nil {
		return false, "", ""
	}
	if tc.Recovered > 0 {
		r.brokenCall = false
		if !r.warnedText {
			r.warnedText = true
			r.warn(fmt.Sprintf("tool calls are arriving as text (%s); recovered %d. %s", tc.Family, tc.Recovered, tc.Hint))
		}
		return false, "", ""
	}
	if tc.Problem == "" || len(msg.ToolCalls) > 0 {
		return false, "", ""
	}
	if r.brokenCall {
		return false, EndMalformedToolCall, fmt.Sprintf("the model wrote a tool call as text that could not be run, twice in a row (%s: %s). Likely cause: %s", tc.Family, tc.Problem, tc.Hint)
	}
	r.brokenCall = true
	r.warn(fmt.Sprintf("the model wrote a tool call as text that could not be run (%s); asking it once to correct it", tc.Problem))
	r.s.Append(msg)
	r.s.Append(Message{Role: RoleUser, Name: nudgeName, Content: r.callNudge(tc.Problem)})
	return true, "", ""
}

// callNudge tells the model what was wrong with the call it wrote.
func (r *run) callNudge(problem string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your last reply contains a tool call written as text, and it was not run: %s. ", problem)
	b.WriteString("Call the tool again with complete, valid arguments (use the tool-calling format, not a description of the call), or answer in text if no tool is needed.")
	if len(r.specs) > 0 {
		b.WriteString(" Tools: " + r.toolList() + ".")
	}
	return b.String()
}
