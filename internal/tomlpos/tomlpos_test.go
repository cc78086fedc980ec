package tomlpos

import "testing"

func TestKeyLine(t *testing.T) {
	t.Parallel()
	doc := []byte("a = 1\n[permissions.bash]\ndefault = \"ask\"\n\"odd key\" = 2\n[x]\ny.z = 3\n[ \"q\" . r ]\ns = 1\n")
	cases := []struct {
		key  []string
		line int
	}{
		{[]string{"a"}, 1},
		{[]string{"permissions", "bash"}, 2},
		{[]string{"permissions", "bash", "default"}, 3},
		{[]string{"permissions", "bash", "odd key"}, 4},
		{[]string{"x", "y", "z"}, 6},
		{[]string{"q", "r", "s"}, 8},
		{[]string{"nope"}, 0},
		{[]string{"elsewhere", "s"}, 8},
	}
	for _, c := range cases {
		if got := KeyLine(doc, c.key); got != c.line {
			t.Errorf("KeyLine(%v) = %d, want %d", c.key, got, c.line)
		}
	}
}
