package permission

import "testing"

func TestReadOnly(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"true", true},
		{"ls -la src", true},
		{"cat a.go | grep -n func | head -5", true},
		{"git status --short && git diff", true},
		{"find . -name '*.go' 2>/dev/null", true},
		{"rg -n TODO; echo done", true},
		{`grep "$x" a.txt`, true},
		{"go version", true},
		{"echo x > out.txt", false},
		{"cat a >> b", false},
		{"ls &> log", false},
		{"touch x", false},
		{"rm -rf build", false},
		{"go test ./...", false},
		{"go env -w GOFLAGS=x", false},
		{"git checkout -- .", false},
		{"git diff --output=p.diff", false},
		{"find . -delete", false},
		{"find . -exec rm {} \\;", false},
		{"sort -o out in", false},
		{"uniq in out", false},
		{"printf -v x %s y", false},
		{"echo $(touch x)", false},
		{"cat <(touch x)", false},
		{"x=1 ls", false},
		{"f() { ls; }", false},
		{"./ls", false},
		{"$CMD", false},
		{"ls |", false},
		{"echo ${x:=y}", false},
		{"(( i++ ))", false},
		{"sed -i s/a/b/ f", false},
		{"xargs rm < list", false},
		{"cat f | tee copy", false},
	} {
		if got := ReadOnly(c.cmd); got != c.want {
			t.Errorf("ReadOnly(%q) = %v, want %v", c.cmd, got, c.want)
		}
	}
}
