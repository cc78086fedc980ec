// Package permission decides, before a tool call runs, whether it is allowed,
// needs the user's approval, or is refused.
//
// Rules:
//  1. Deny beats ask beats allow, whatever the order of the rules; across the
//     parts of a compound command the strictest verdict wins.
//  2. Shell commands are parsed with a real shell parser (mvdan.cc/sh/v3);
//     every simple command anywhere in the tree, and every command an
//     exec-wrapper runs (sh -c, eval, env, xargs, find -exec, git -c, go test
//     -exec, sed e, awk system(), ...), is a part. A parse error is never
//     allow.
//  3. Structural checks apply whatever the rule lists say, and a session
//     approval never lifts them: hostile characters, command names made by
//     expansion, dangerous environment prefixes, writes outside the workspace
//     or into protected paths, reads outside it, sensitive files, cd out of
//     it, over-long commands.
//  4. A workspace's own configuration can only make verdicts stricter: its
//     allow lists are ignored, its default can only raise the user's, and its
//     `builtin = false` drops only the built-in allow list.
//  5. Nothing here is the security boundary: the OS sandbox is. This package
//     decides when to interrupt the user.
//
// Bash rules are command globs over the normalised simple command (argv
// after quote removal, joined by single spaces, redirections appended): `*`
// matches any run of characters, spaces and slashes included, and the match
// is anchored, so `cat *` does not match a bare `cat` while `ls*` matches
// `lsof`. Deny and ask rules also see argv[0] reduced to its base name
// (`/bin/rm x` meets `rm *`); allow rules need the bare name unless the rule
// itself names the path (`./ls` is not `ls`).
//
// File tools (write_file, str_replace, read_file, glob, grep) have tables of
// the same shape whose patterns are doublestar globs over workspace-relative
// paths; deny and ask patterns match case-insensitively.
//
// Configuration, in the user's file and optionally the workspace's:
//
//	[permissions.bash]
//	builtin = false   # drop the built-in lists: the file states the rule set
//	default = "ask"   # "allow" | "ask" | "deny"
//	allow = ["ls*", "cat *", "git status*"]
//	ask = []
//	deny = ["rm *", "sudo *", "git push*"]
//
//	[permissions.write_file]
//	default = "allow"
//	ask = ["docs/**"]
package permission
