package demo

import (
	"reflect"
	"testing"
)

func TestCount(t *testing.T) {
	got := Count("the cat  and the\nhat")
	want := map[string]int{"the": 2, "cat": 1, "and": 1, "hat": 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Count = %v, want %v", got, want)
	}
}

func TestTop(t *testing.T) {
	got := Top(map[string]int{"a": 1, "b": 3, "c": 3}, 2)
	if want := []string{"b", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Top = %v, want %v", got, want)
	}
}
