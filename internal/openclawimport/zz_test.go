package openclawimport

import "testing"

func FuzzZZ(f *testing.F) {
	f.Add("x")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<20 {
			t.Fatal(s)
		}
	})
}
