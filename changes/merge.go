package changes

import (
	"sort"
	"strings"
)

// revert takes back one change of a text file while keeping what the user
// wrote since: after is what the agent left, target what was there
// before it, current what the file holds now. Each hunk of the agent's
// change (after → target) that no edit of the user (after → current)
// touches is reverted; a hunk the user edited, or edited right at its
// edge, is left as the user has it and counted in conflicts. The user's
// edits are always kept.
func revert(after, target, current []byte) (out []byte, conflicts int) {
	a := splitLines(after)
	t := splitLines(target)
	u := splitLines(current)
	agent := lineHunks(a, t)
	user := lineHunks(a, u)

	type item struct {
		h    hunk
		user bool
	}
	items := make([]item, 0, len(agent)+len(user))
	for _, h := range agent {
		items = append(items, item{h, false})
	}
	for _, h := range user {
		items = append(items, item{h, true})
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].h.a0 != items[j].h.a0 {
			return items[i].h.a0 < items[j].h.a0
		}
		return items[i].h.a1 < items[j].h.a1
	})

	// mapU maps a line position of after that no user hunk covers to the
	// same position in current, from the user hunks that end at or
	// before it.
	mapU := func(pos int) int {
		off := 0
		for _, h := range user {
			if h.a1 <= pos && !(h.a0 == h.a1 && h.a0 == pos) {
				off += (h.b1 - h.b0) - (h.a1 - h.a0)
			}
		}
		return pos + off
	}

	var sb strings.Builder
	pos := 0
	for i := 0; i < len(items); {
		// A cluster: hunks that touch each other, whoever made them.
		c0, c1 := items[i].h.a0, items[i].h.a1
		hasUser, hasAgent := items[i].user, !items[i].user
		j := i + 1
		for ; j < len(items); j++ {
			h := items[j].h
			empty := h.a0 == h.a1 || c0 == c1
			if h.a0 < c1 || (empty && h.a0 <= c1) || (h.a0 == c1 && items[j].user != items[j-1].user && (h.a0 == h.a1 || items[j-1].h.a0 == items[j-1].h.a1)) {
				c1 = max(c1, h.a1)
				hasUser = hasUser || items[j].user
				hasAgent = hasAgent || !items[j].user
				continue
			}
			break
		}
		for ; pos < c0; pos++ {
			sb.WriteString(a[pos])
		}
		switch {
		case hasUser && hasAgent:
			// Both changed this part: the user's text stays.
			conflicts++
			for _, l := range u[mapU(c0) : mapU(c0)+(c1-c0)+userDelta(user, c0, c1)] {
				sb.WriteString(l)
			}
		case hasUser:
			for _, it := range items[i:j] {
				for _, l := range u[it.h.b0:it.h.b1] {
					sb.WriteString(l)
				}
			}
		default:
			for _, it := range items[i:j] {
				for _, l := range t[it.h.b0:it.h.b1] {
					sb.WriteString(l)
				}
			}
		}
		pos = c1
		i = j
	}
	for ; pos < len(a); pos++ {
		sb.WriteString(a[pos])
	}
	return []byte(sb.String()), conflicts
}

// userDelta is how many lines the user hunks inside [c0, c1] added
// (negative: removed).
func userDelta(user []hunk, c0, c1 int) int {
	d := 0
	for _, h := range user {
		if h.a0 >= c0 && h.a1 <= c1 && !(h.a0 == h.a1 && (h.a0 < c0 || h.a0 > c1)) {
			d += (h.b1 - h.b0) - (h.a1 - h.a0)
		}
	}
	return d
}
