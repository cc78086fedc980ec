package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
)

// MaxToolName is the longest tool name OpenAI-compatible APIs accept.
const MaxToolName = 64

// toolKey is one tool of one server.
type toolKey struct{ server, tool string }

// exposedNames names every tool mcp__SERVER__TOOL. The plain name is kept
// when it needed no change (the tool's name is already in [A-Za-z0-9_-]
// and the whole fits in MaxToolName), so a tool whose name had to change
// never takes the name of one that did not; otherwise the name is cut to leave room for "_" and 8 hex digits of a
// hash of server and tool. The result depends only on the set of tools,
// not on the order they came in.
func exposedNames(keys []toolKey) map[toolKey]string {
	plain := make(map[toolKey]string, len(keys))
	count := map[string]int{}
	exact := func(k toolKey) bool {
		return k.tool != "" && sanitize(k.tool) == k.tool && len(plain[k]) <= MaxToolName
	}
	for _, k := range keys {
		plain[k] = "mcp__" + k.server + "__" + sanitize(k.tool)
		if exact(k) {
			count[plain[k]]++
		}
	}
	out := make(map[toolKey]string, len(keys))
	used := map[string]bool{}
	var hashed []toolKey
	for _, k := range keys {
		n := plain[k]
		if exact(k) && count[n] == 1 {
			out[k] = n
			used[n] = true
		} else {
			hashed = append(hashed, k)
		}
	}
	sort.Slice(hashed, func(i, j int) bool {
		if hashed[i].server != hashed[j].server {
			return hashed[i].server < hashed[j].server
		}
		return hashed[i].tool < hashed[j].tool
	})
	for _, k := range hashed {
		sum := sha256.Sum256([]byte(k.server + "\x00" + k.tool))
		h := hex.EncodeToString(sum[:])
		// Longer hashes only on the (astronomically rare) clash.
		for l := 8; ; l += 4 {
			base := plain[k]
			if max := MaxToolName - 1 - l; len(base) > max {
				base = base[:max]
			}
			n := base + "_" + h[:l]
			if !used[n] || l >= 32 {
				out[k] = n
				used[n] = true
				break
			}
		}
	}
	return out
}
