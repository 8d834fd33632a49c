package fakefault

import "testing"

func TestQueue(t *testing.T) {
	var q Queue[string]
	q.Add(2, "a")
	q.Add(1, "b")
	q.Add(0, "never")
	var got []string
	for range 4 {
		if f, ok := q.Take(nil); ok {
			got = append(got, f)
		}
	}
	if len(got) != 3 || got[0] != "a" || got[1] != "a" || got[2] != "b" {
		t.Errorf("got %q, want a, a, b", got)
	}
	q.Add(1, "x")
	q.Add(1, "y")
	if f, ok := q.Take(func(s string) bool { return s == "y" }); !ok || f != "y" {
		t.Errorf("got %q, %v, want y", f, ok)
	}
	q.Reset()
	if _, ok := q.Take(nil); ok {
		t.Error("got a fault after Reset")
	}
}
