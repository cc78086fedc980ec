package changes

import (
	"strings"
	"testing"
)

func TestRevert(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                   string
		before, after, current string
		want                   string
		conflicts              int
	}{
		{"untouched by the user", "a\nb\nc\n", "a\nB\nc\n", "a\nB\nc\n", "a\nb\nc\n", 0},
		{"user edited elsewhere", "a\nb\nc\nd\ne\n", "a\nB\nc\nd\ne\n", "a\nB\nc\nd\nE!\n", "a\nb\nc\nd\nE!\n", 0},
		{"user added lines elsewhere", "1\n2\n3\n4\n5\n6\n", "1\n2\n3\n4\nfive\n6\n", "zero\n1\n2\n3\n4\nfive\n6\n", "zero\n1\n2\n3\n4\n5\n6\n", 0},
		{"user edited inside the hunk", "a\nb\nc\n", "a\nB\nc\n", "a\nB and mine\nc\n", "a\nB and mine\nc\n", 1},
		{"one hunk kept, the other reverted", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\nTWO\n3\n4\n5\n6\nSEVEN\n8\n", "1\nTWO!\n3\n4\n5\n6\nSEVEN\n8\n", "1\nTWO!\n3\n4\n5\n6\n7\n8\n", 1},
		{"agent inserted lines", "a\nc\n", "a\nb1\nb2\nc\n", "a\nb1\nb2\nc\nd\n", "a\nc\nd\n", 0},
		{"agent deleted lines", "a\nb\nc\nd\n", "a\nd\n", "x\na\nd\n", "x\na\nb\nc\nd\n", 0},
		{"user inserted at the hunk's edge", "a\nb\nc\n", "a\nB\nc\n", "a\nB\nmine\nc\n", "a\nB\nmine\nc\n", 1},
		{"CRLF", "a\r\nb\r\nc\r\nd\r\n", "a\r\nB\r\nc\r\nd\r\n", "a\r\nB\r\nc\r\nD\r\n", "a\r\nb\r\nc\r\nD\r\n", 0},
		{"no final newline", "a\nb\nc", "a\nb\nC", "A\nb\nC", "A\nb\nc", 0},
		{"no final newline, user appended", "a\nb\nc", "a\nb\nC", "a\nb\nC\nd", "a\nb\nC\nd", 1},
		{"agent added the final newline", "a\nb", "a\nb\n", "x\na\nb\n", "x\na\nb", 0},
		{"whole file rewritten, user untouched", "old\n", "new\nlines\n", "new\nlines\n", "old\n", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, n := revert([]byte(c.after), []byte(c.before), []byte(c.current))
			if string(got) != c.want || n != c.conflicts {
				t.Errorf("revert:\n got %q (%d conflicts)\nwant %q (%d conflicts)", got, n, c.want, c.conflicts)
			}
		})
	}
}

func TestUnified(t *testing.T) {
	t.Parallel()
	got := unified("a/x", "b/x", []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n"), []byte("1\n2\n3\n4\nfive\n6\n7\n8\n9"))
	want := strings.Join([]string{
		"--- a/x", "+++ b/x", "@@ -2,8 +2,8 @@", " 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8", "-9", "+9",
		`\ No newline at end of file`, ""}, "\n")
	if got != want {
		t.Errorf("unified:\n%s\nwant:\n%s", got, want)
	}
	if a, r := counts([]byte("a\nb\n"), []byte("a\nB\nc\n")); a != 2 || r != 1 {
		t.Errorf("counts = +%d -%d, want +2 -1", a, r)
	}
	if unified("a", "b", []byte("same"), []byte("same")) != "" {
		t.Error("no diff expected for equal contents")
	}
}
