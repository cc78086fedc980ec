package permission

import (
	"strings"
	"testing"
)

// TestHeredocAndTrap: an unquoted here-document reaches the inner shell
// after the outer shell's escape processing; trap actions are commands.
func TestHeredocAndTrap(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir(), issueRules())
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, e, []verdictCase{
		{"bash <<EOF\nls \\`rm -rf x\\`\nEOF", Deny},
		{"sh <<EOF\necho \\$(rm -rf x)\nEOF", Deny},
		{"bash <<-EOF\n\tls \\`sudo id\\`\n\tEOF", Deny},
		{"bash <<EOF\nls \\\nrm -rf x\nEOF", Allow},     // \newline joins the lines: ls with operands
		{"bash <<'EOF'\nls \\`rm -rf x\\`\nEOF", Allow}, // quoted: the inner shell sees the escapes
		{"bash <<'EOF'\nls `rm -rf x`\nEOF", Deny},
		{"bash <<EOF\nls `echo hi`\nEOF", Ask}, // the outer shell substitutes: unknown text
		{"bash <<EOF\necho \\\"hi\\\"\nEOF", Allow},
		{"cat <<EOF\nls \\`rm -rf x\\`\nEOF", Allow}, // cat only prints it
		{"cat <<EOF | bash\nls \\`rm -rf x\\`\nEOF", Deny},
		{"cat <<'EOF' | sh\nrm -rf x\nEOF", Deny},
		{"echo 'rm -rf x' | bash", Deny},
		{"cat <<< 'sudo id' | bash", Deny},
		{"echo ls | bash", Ask},
		{"trap -- 'rm -rf x' EXIT", Deny},
		{"trap -- 'sudo id' ERR; ls", Deny},
		{"trap 'rm -rf x' EXIT INT", Deny},
		{"trap - EXIT", Ask},
		{"trap -p", Ask},
	})
}

// TestCheckerPanicIsDeny: the empty git alias that crashed the checker, and
// a deny after it that the crash used to hide.
func TestCheckerPanicIsDeny(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"git -c alias.x x; sudo id", "git -c alias.x x", "git -c alias.x= x status"} {
		d := e.CheckCommand(cmd)
		for _, p := range d.Parts {
			if strings.HasPrefix(p.Reason, "checker failed") {
				t.Errorf("%q: %s", cmd, p.Reason)
			}
		}
		if cmd == "git -c alias.x x; sudo id" && d.Verdict != Deny {
			t.Errorf("%q: %s\n%s", cmd, d.Verdict, d.Explain())
		}
		if d.Verdict < Ask {
			t.Errorf("%q: %s", cmd, d.Verdict)
		}
	}
}

// TestRecoveredPanicIsDeny: a crash anywhere in the checker, even on a
// part that would be allowed and after parts that are, gives deny, never
// ask or allow (issue 10: a recovered panic hid sudo's deny as ask).
func TestRecoveredPanicIsDeny(t *testing.T) {
	for _, set := range [][]RuleSet{nil, {issueRules()}} {
		e, err := New(t.TempDir(), set...)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ cmd, crashOn string }{
			{"ls", "ls"},
			{"ls; cat go.mod", "cat go.mod"},
			{"echo hi | grep h", "grep h"},
			{"git status && sudo id", "git status"},
			{"bash -c 'ls'", "ls"},
			{"taskset -c 0 echo x", "echo x"},
		} {
			crashOn := tc.crashOn
			e.onCommand = func(text string) {
				if text == crashOn {
					panic("injected")
				}
			}
			d := e.CheckCommand(tc.cmd)
			e.onCommand = nil
			if d.Verdict != Deny {
				t.Errorf("%q with a crash on %q: %s, want deny\n%s", tc.cmd, tc.crashOn, d.Verdict, d.Explain())
			}
			if !strings.Contains(d.Explain(), "checker failed: injected") {
				t.Errorf("%q: the crash is not named:\n%s", tc.cmd, d.Explain())
			}
			if d := e.CheckCommand(tc.cmd); d.Verdict == Deny && !strings.Contains(tc.cmd, "sudo") {
				t.Errorf("%q without the crash: deny\n%s", tc.cmd, d.Explain())
			}
		}
	}
}
