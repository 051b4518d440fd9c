package suite

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is one part of the suite for a CI matrix: shard Index of Count,
// counting from 1.
type Shard struct {
	Index, Count int
}

// ParseShard parses "i/n" with 1 ≤ i ≤ n.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/n, such as 2/4", s)
	}
	if n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want 1 ≤ i ≤ n", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// Contains reports whether scenario s belongs to the shard. The assignment
// depends only on the scenario's name (FNV-1a of the name, modulo the
// count), so a scenario stays in its shard when others are added or
// removed, and the shards of one count partition the suite.
func (sh Shard) Contains(s Scenario) bool {
	h := fnv.New32a()
	h.Write([]byte(s.Name))
	return int(h.Sum32()%uint32(sh.Count)) == sh.Index-1
}

// String formats the shard as "i/n".
func (sh Shard) String() string { return fmt.Sprintf("%d/%d", sh.Index, sh.Count) }
