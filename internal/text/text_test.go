package text

import "testing"

func TestText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ got, want string }{
		{OneLine(" a\n\tb  c ", 0), "a b c"},
		{OneLine("héllo wörld", 5), "héll…"},
		{OneLine("short", 5), "short"},
		{Cut("aé", 2), "a"},
		{Cut("abc", -1), ""},
		{Clip("héllo", 3), "hé…"},
		{Clip("hi", 3), "hi"},
		{Size(512), "512 bytes"},
		{Size(6 << 10), "6 KiB"},
		{Size(1 << 20), "1 MiB"},
		{Size(52363264), "49.9 MiB"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
