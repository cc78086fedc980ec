package permission

import (
	"strings"
	"testing"
)

// issueRules is the user rule set of issue 10's held-out check: the corpus
// rules plus npm test, make, echo and find.
func issueRules() RuleSet {
	off := false
	return RuleSet{Source: "user", Origin: FromUser, Tools: Permissions{"bash": {
		Builtin: &off,
		Default: Ask,
		Allow:   []string{"ls*", "cat *", "grep *", "git status*", "git diff*", "go test*", "npm test*", "make*", "echo *", "find *"},
		Deny:    []string{"rm *", "sudo *", "curl *", "wget *", "git push*"},
	}}}
}

type verdictCase struct {
	cmd  string
	want Verdict
}

func checkTable(t *testing.T, e *Engine, cases []verdictCase) {
	t.Helper()
	for _, tc := range cases {
		d := e.CheckCommand(tc.cmd)
		if d.Verdict != tc.want {
			t.Errorf("%q: got %s, want %s\n%s", tc.cmd, d.Verdict, tc.want, d.Explain())
		}
	}
}

// TestArithmeticContexts: command substitutions that bash reaches through
// subscripts and arithmetic, quoted or not, are checked like any command,
// and values the checker cannot know are never allowed there. Every row
// with a $(rm …) was verified to run rm in bash 5.2.
func TestArithmeticContexts(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir(), issueRules())
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, e, []verdictCase{
		{`test -v 'a[$(rm -rf x)]'`, Deny},
		{`[ -v 'a[$(rm -rf x)]' ]`, Deny},
		{`[[ -v 'a[$(rm -rf x)]' ]]`, Deny},
		{`[[ 'a[$(rm -rf x)]' -eq 0 ]]`, Deny},
		{`[[ 1 -ne "a[$(rm -rf x)]" ]]`, Deny},
		{`[[ 'a[$(rm -rf x)]' -lt 0 || 1 -le 2 ]]`, Deny},
		{`[[ 'a[$(rm -rf x)]' -gt 0 ]] && echo y`, Deny},
		{`[[ 0 -ge 'a[$(rm -rf x)]' ]]`, Deny},
		{`x=abc; echo ${x:'$(rm -rf x)':1}`, Deny},
		{`echo ${x:'$(rm -rf x)'}`, Deny},
		{`printf -v 'a[$(rm -rf x)]' %s x`, Deny},
		{`read 'a[$(rm -rf x)]' <<< x`, Deny},
		{`echo 1 | read -r 'a[$(rm -rf x)]'`, Deny},
		{`declare -i x='a[$(rm -rf x)]'`, Deny},
		{`declare -i x; x='a[$(rm -rf x)]'`, Deny},
		{`x='a[$(rm -rf x)]'; declare -i x`, Deny},
		{`local -i n='a[$(rm -rf x)]'`, Deny},
		{`typeset -i n='a[$(rm -rf x)]'`, Deny},
		{`readonly -i n='a[$(rm -rf x)]'`, Deny},
		{`export -i n='a[$(rm -rf x)]'`, Deny},
		{`declare -a 'a[$(rm -rf x)]=1'`, Deny},
		{`a=(['$(rm -rf x)']=1)`, Deny},
		{`a['$(rm -rf x)']=1`, Deny},
		{`declare -i x; x+='a[$(rm -rf x)]'`, Deny},
		{`let 'x=a[$(rm -rf x)]'`, Deny},
		{`command let 'x=a[$(rm -rf x)]'`, Deny},
		{`echo $(( 'a[$(rm -rf x)]' ))`, Deny},
		{`echo $(( '$(rm -rf x)' + 1 ))`, Deny},
		{`echo $[ 'a[$(rm -rf x)]' ]`, Deny},
		{`(( 'a[$(rm -rf x)]' ))`, Deny},
		{`for ((i='a[$(rm -rf x)]';i<1;i++)); do :; done`, Deny},
		{`a=(1); echo ${a['$(rm -rf x)']}`, Deny},
		{`echo ${a["$(rm -rf x)"]}`, Deny},
		{"echo ${a[`rm -rf x`]}", Deny},
		{`x='a[$(rm -rf x)]'; echo $((x))`, Deny},
		{`x='a[$(rm -rf x)]'; echo $(($x))`, Deny},
		{`x='a[$(rm -rf x)]'; (( x ))`, Deny},
		{`x='a[$(rm -rf x)]'; [[ $x -eq 1 ]]`, Deny},
		{`x='a[$(rm -rf x)]'; y=x; echo $((y))`, Deny},
		{`x='a[$(rm -rf x)]'; echo ${#x[x]}`, Deny},
		{`x='a[$(rm -rf x)]'; echo ${!x}`, Deny},
		{`x='a[$(rm -rf x)]'; bash -c 'echo $((x))'`, Deny},
		{`unset 'a[$(rm -rf x)]'`, Deny},
		{`mapfile -t 'a[$(rm -rf x)]' < /dev/null`, Deny},
		{`getopts a 'v[$(rm -rf x)]'`, Deny},
		{`trap -- 'rm -rf x' EXIT`, Deny},
		{`trap -- "rm -rf x" INT TERM`, Deny},
		{`mapfile -C 'rm -rf x' -c 1 a < /dev/null`, Deny},
		// Values the checker cannot know.
		{`read n < count.txt; echo $((n + 1))`, Ask},
		{`for f in *; do (( f > 0 )); done`, Ask},
		{`while read -r line; do [[ $line -gt 3 ]] && echo big; done < nums`, Ask},
		{`n=$(cat count.txt); echo $((n * 2))`, Ask},
		{`echo $(( $(cat count.txt) + 1 ))`, Ask},
		{`f() { echo $(( $1 + 1 )); }; f 2`, Ask},
		{`test -v "$name"`, Ask},
		{`read -a arr < f; echo ${arr[0]}; echo $(( arr ))`, Ask},
		{`declare "$spec"`, Ask},
		{`printf -v out %s "$x"; echo $((out))`, Ask},
		{`[[ $REPLY -eq 1 ]]`, Ask},
		// Arithmetic that is provably inert stays allowed.
		{`echo $((1 + 2))`, Allow},
		{`i=0; i=$((i + 1)); echo $i`, Allow},
		{`for ((i = 0; i < 3; i++)); do echo $i; done`, Allow},
		{`for i in 1 2 3; do echo $((i * 2)); done`, Allow},
		{`n=5; (( n > 3 )) && echo big`, Allow},
		{`[[ $# -eq 0 ]] && echo none`, Allow},
		{`[[ 3 -gt 2 ]] && echo y`, Allow},
		{`a=(x y z); echo ${a[1]} ${#a[@]} ${a[@]:1:2}`, Allow},
		{`s=hello; echo ${s:1:3}`, Allow},
		{`echo $(( 16#ff + 0x10 ))`, Allow},
	})
	// Allowed under the built-in rules, or asked only because the program
	// has no rule: no part may blame arithmetic.
	b, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		`test -v HOME && echo set`, `[ -v 'a[1]' ]`, `let x=1+2 && echo $x`, `declare -i n=4; n+=1; echo $n`,
		`declare -A m; m[$k]=1; echo ${m[$k]}`, `read -r line < f; echo "$line"`, `for f in *.go; do echo "$f"; done`,
		`[ 'a[$(rm -rf x)]' -eq 0 ]`, // test's -eq takes integers only: inert (bash 5.2)
	} {
		d := b.CheckCommand(cmd)
		for _, p := range d.Parts {
			if p.Verdict > Allow && strings.Contains(p.Reason, "arithmetic") {
				t.Errorf("%q: blamed on arithmetic\n%s", cmd, d.Explain())
			}
		}
		if d.Verdict == Deny {
			t.Errorf("%q: deny\n%s", cmd, d.Explain())
		}
	}
}
