package permission

import "testing"

// TestWrappersUnwrapped: every wrapper's command is checked as its own part,
// so a denied command inside stays denied and an allowed one stays allowed.
func TestWrappersUnwrapped(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir(), issueRules())
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, e, []verdictCase{
		{"taskset -c 0 rm -rf victim", Deny},
		{"taskset 0x1 rm -rf victim", Deny},
		{"taskset -a -c -- 0,1 rm -rf victim", Deny},
		{"taskset -c 0 ls", Allow},
		{"taskset -p 0x1 1234", Ask},
		{"chrt -f 10 rm -rf victim", Deny},
		{"chrt --idle 0 rm -rf victim", Deny},
		{"chrt -T 100 -P 200 -D 300 -d 0 rm -rf victim", Deny},
		{"chrt 0 ls", Allow},
		{"chrt -T", Ask}, // an option value missing at the end
		{"prlimit --nofile=1024 rm -rf victim", Deny},
		{"prlimit -n1024 -- rm -rf victim", Deny},
		{"prlimit --cpu=10 ls", Allow},
		{"unshare -r rm -rf victim", Deny},
		{"unshare --map-user 0 --wd . rm -rf victim", Deny},
		{"unshare -n ls", Allow},
		{"unshare -r", Ask},
		{"fakeroot rm -rf victim", Deny},
		{"fakeroot -- rm -rf victim", Deny},
		{"fakeroot -i state ls", Allow},
		{"fakeroot", Ask},
		{"fakeroot --faked 'rm -rf victim' ls", Deny},
		{"ssh-agent rm -rf victim", Deny},
		{"ssh-agent -t 60 rm -rf victim", Deny},
		{"ssh-agent ls", Allow},
		{"parallel rm ::: a b", Deny},
		{"parallel -j 4 rm -rf ::: victim", Deny},
		{"parallel ::: 'rm -rf victim' ls", Deny},
		{"parallel echo ::: a b", Ask},
		{"sem rm -rf victim", Deny},
		{"setpriv --reuid 1000 rm -rf victim", Deny},
		{"setpriv --no-new-privs rm -rf victim", Deny},
		{"setpriv --no-new-privs ls", Allow},
		{"runuser -u nobody -- rm -rf victim", Deny},
		{"runuser -u nobody ls", Ask},
		{"runuser nobody -c 'rm -rf victim'", Deny},
		{"script -c 'rm -rf victim' /dev/null", Deny},
		{"script -q -c 'rm -rf victim'", Deny},
		{"script --command='rm -rf victim' log.txt", Deny},
		{"script -c ls /dev/null", Allow},
		{"script", Ask},
		{"script -c ls .git/hooks/pre-commit", Ask},
		{"zip -T -TT 'rm -rf victim' a.zip f", Deny},
		{"zip -TT='rm -rf victim' -T a.zip f", Deny},
		{"zip --unzip-command 'rm -rf victim' -T a.zip f", Deny},
		{"zip -r a.zip src", Ask},
		{"xargs -a list -- rm -rf", Deny},
		{"xargs -a -- rm -rf", Deny},
		{"xargs -i rm {}", Deny},
		{"xargs -l rm", Deny},
		{"xargs --replace rm {}", Deny},
		{"xargs -0 -I{} rm {}", Deny},
		// The existing wrappers still unwrap.
		{"timeout 5 rm -rf victim", Deny},
		{"nice -n 5 rm -rf victim", Deny},
		{"stdbuf -oL rm -rf victim", Deny},
		{"env A=1 rm -rf victim", Deny},
		{"command rm -rf victim", Deny},
		{"nohup ls", Allow},
		// Programs that run their arguments but are not unwrapped: at
		// least ask, and a denied command visible inside is denied.
		{"numactl --cpunodebind=0 ls", Ask},
		{"numactl -C 0 rm -rf victim", Deny},
		{"nsenter -t 1 -m ls", Ask},
		{"valgrind ls", Ask},
		{"ssh localhost rm -rf victim", Deny},
		{"faketime '2020-01-01' rm -rf victim", Deny},
		{"npm exec -- rm -rf victim", Deny},
		{"npx cowsay hi", Ask},
		{"docker exec box ls", Ask},
		{"tmux new-session -d 'rm -rf victim'", Deny},
		{"gdb -batch -ex 'shell rm -rf victim'", Deny}, // the rm inside the -ex argument is seen
	})
}
