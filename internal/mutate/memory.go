package mutate

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// residentUnder returns the resident memory, in bytes, of the processes
// whose environment has TMPDIR under dir: what one scenario run holds,
// its runner and the implementations and commands it started. Without
// /proc it is 0.
func residentUnder(dir string) int64 {
	var total int64
	page := int64(os.Getpagesize())
	processesUnder(dir, func(pid int) {
		// statm: size, resident, shared, ... in pages.
		statm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "statm"))
		if err != nil {
			return // gone meanwhile
		}
		if f := strings.Fields(string(statm)); len(f) > 1 {
			if n, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				total += n * page
			}
		}
	})
	return total
}

// DefaultMemoryBound is the memory bound of one scenario run when jobs
// run at once: half the machine's memory, shared among them, so that
// mutants that loop allocating leave the other half to everything else.
// It is 0, no bound, where /proc/meminfo cannot be read.
func DefaultMemoryBound(jobs int) int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// MemTotal:       24022132 kB
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil || jobs < 1 {
				return 0
			}
			return kb << 10 / 2 / int64(jobs)
		}
	}
	return 0
}
