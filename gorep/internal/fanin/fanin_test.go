package fanin

import (
	"sort"
	"testing"
)

// Every way delivers every value exactly once, for any n and buffer.
func TestEveryValueOnce(t *testing.T) {
	for _, way := range Ways {
		for _, n := range []int{1, 2, 7, 64} {
			for _, buffer := range []int{0, 1, 16} {
				const per = 100
				var got []int
				Collect(way, n, buffer, func(i int, send func(int)) {
					for k := range per {
						send(i*per + k)
					}
				}, func(v int) { got = append(got, v) })
				if len(got) != n*per {
					t.Fatalf("%s n=%d buffer=%d: %d values, want %d", way, n, buffer, len(got), n*per)
				}
				sort.Ints(got)
				for k, v := range got {
					if v != k {
						t.Fatalf("%s n=%d buffer=%d: value %d missing or repeated", way, n, buffer, k)
					}
				}
			}
		}
	}
}

func TestProducerWithNothingToSend(t *testing.T) {
	for _, way := range Ways {
		count := 0
		Collect(way, 3, 0, func(int, func(int)) {}, func(int) { count++ })
		if count != 0 {
			t.Fatalf("%s: %d values from silent producers", way, count)
		}
	}
}

func TestParseWay(t *testing.T) {
	if w, err := ParseWay("reflect-select"); err != nil || w != Reflect {
		t.Fatal(w, err)
	}
	if _, err := ParseWay("select"); err == nil {
		t.Fatal("an unknown way was accepted")
	}
}
