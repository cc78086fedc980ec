package tools

import "strings"

// closest returns the candidate nearest to name by edit distance, ignoring
// case, or "" if none is near enough to be a plausible typo.
func closest(name string, candidates []string) string {
	if len(name) > 128 {
		return ""
	}
	best, bestD := "", -1
	for _, c := range candidates {
		dist := editDistance(strings.ToLower(name), strings.ToLower(c))
		if dist <= max(2, len(c)/3) && (bestD < 0 || dist < bestD) {
			best, bestD = c, dist
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
