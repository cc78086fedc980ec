package tools

import (
	"slices"
	"testing"
)

func TestReadToolsAccess(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a    Access
		want []string
	}{
		{(&ReadFileParams{Path: "a.go"}).Access(), []string{"a.go"}},
		{(&GlobParams{Pattern: "**/*.go"}).Access(), []string{"**/*.go"}},
		{(&GlobParams{Pattern: "*.go", Path: "src"}).Access(), []string{"src", "src/*.go"}},
		{(&GlobParams{Pattern: "../../*", Path: "src"}).Access(), []string{"src", "../*"}},
		{(&GrepParams{Pattern: "x"}).Access(), nil},
		{(&GrepParams{Pattern: "x", Path: ".env"}).Access(), []string{".env"}},
	} {
		if c.a.Kind != AccessRead || !slices.Equal(c.a.Paths, c.want) {
			t.Errorf("Access = %+v, want read of %q", c.a, c.want)
		}
	}
}
