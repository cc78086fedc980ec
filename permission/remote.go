package permission

import (
	"strings"
)

// sshCommandKeys are ssh options whose value is a command: ProxyCommand,
// LocalCommand and KnownHostsCommand run here, RemoteCommand on the
// other side (like ssh HOST CMD).
var sshCommandKeys = &set{items: []string{"proxycommand", "localcommand", "knownhostscommand", "remotecommand"}}

// sshOptions checks ssh, scp and sftp's -o KEY=VALUE (also -oKEY=VALUE and
// "KEY VALUE") for commands, and scp/sftp -S PROGRAM, which runs in place
// of ssh.
func (c *checker) sshOptions(base string, args []word, pl *plan) {
	for i, a := range args {
		if v, ok := optValue(args, i, "-o"); ok && strings.HasPrefix(a.text, "-o") {
			kv := strings.TrimSpace(v.text)
			k := strings.IndexAny(kv, "= \t")
			if k < 0 {
				continue
			}
			key := strings.ToLower(kv[:k])
			if !sshCommandKeys.get()[key] {
				continue
			}
			w := word{text: strings.TrimLeft(kv[k:], "= \t"), static: v.static}
			pl.ask(a.text, base+" -o "+kv[:k]+" runs a command")
			pl.inner = append(pl.inner, func() { c.nestedScript(w, base+" "+kv[:k]) })
		}
		if v, ok := optValue(args, i, "-S"); ok && base != "ssh" && strings.HasPrefix(a.text, "-S") {
			pl.ask(a.text, base+" -S names the program run instead of ssh")
			pl.inner = append(pl.inner, func() { c.nestedProgram(v, base+" -S") })
		}
	}
}

// rsync -e and --rsh name the remote shell, which runs here; --rsync-path
// names what runs on the other side, which is checked like a command ssh
// runs there.
func (c *checker) rsync(args []word, pl *plan) {
	for i, a := range args {
		if v, ok := optValue(args, i, "--rsync-path"); ok {
			pl.ask(a.text, "rsync --rsync-path runs a command on the other side")
			pl.inner = append(pl.inner, func() { c.nestedScript(v, "rsync --rsync-path") })
		}
		if v, ok := optValue(args, i, "-e", "--rsh"); ok {
			pl.ask(a.text, "rsync "+a.text+" runs a program")
			pl.inner = append(pl.inner, func() { c.nestedScript(v, "rsync -e") })
		}
	}
}
