// Package demo counts words, the small example workspace for agent-lsp.
package demo

import (
	"sort"
	"strings"
)

// Count returns how often each word occurs in text, ignoring case.
func Count(text string) map[string]int {
	counts := make(map[string]int)
	for _, w := range strings.Split(strings.ToLower(text), " ") {
		counts[w]++
	}
	return counts
}

// Top returns the n most frequent words, most frequent first; ties are
// broken alphabetically.
func Top(counts map[string]int, n int) []string {
	words := make([]string, 0, len(counts))
	for w := range counts {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if counts[words[i]] != counts[words[j]] {
			return counts[words[i]] > counts[words[j]]
		}
		return words[i] < words[j]
	})
	if len(words) > n {
		words = words[:n]
	}
	return words
}
