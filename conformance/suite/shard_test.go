package suite

import "testing"

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"", "1", "0/2", "3/2", "a/b", "1/0", "-1/2", "1/2/3"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	sh, err := ParseShard("2/3")
	if err != nil || sh != (Shard{2, 3}) || sh.String() != "2/3" {
		t.Errorf("ParseShard(2/3) = %v, %v", sh, err)
	}
}

// TestShardsPartition checks that the shards of one count cover every
// scenario exactly once and that assignment depends on the name alone.
func TestShardsPartition(t *testing.T) {
	var names []string
	for _, a := range []string{"call", "exec", "output", "bg", "perm"} {
		for _, b := range []string{"one", "two", "three", "four", "five", "six"} {
			names = append(names, a+"_"+b)
		}
	}
	for n := 1; n <= 5; n++ {
		count := map[string]int{}
		nonEmpty := 0
		for i := 1; i <= n; i++ {
			k := 0
			for _, name := range names {
				if (Shard{i, n}).Contains(Scenario{Name: name}) {
					count[name]++
					k++
				}
			}
			if k > 0 {
				nonEmpty++
			}
		}
		for _, name := range names {
			if count[name] != 1 {
				t.Errorf("n=%d: %s is in %d shards", n, name, count[name])
			}
		}
		if nonEmpty != n {
			t.Errorf("n=%d: only %d shards are non-empty for %d scenarios", n, nonEmpty, len(names))
		}
	}
}
