// Command mutants measures how well the scenarios pin the reference down:
// it mutates ref/ in small ways, builds the apexcheck binary with each
// mutant (through a build overlay: the tree is never copied or changed),
// runs the scenarios of the mutated package's area against it, and prints
// the kill rate per package and every survivor, judged against the triage
// list. It exits 1 when a survivor is untriaged, when a survivor triaged as
// killed by a scenario still survives, or when the kill rate of the
// non-equivalent mutants is below 95%; 2 on bad usage or a failing
// baseline.
//
//	go run ./internal/mutate/mutants -pkg ref/call,ref/server -max 40 -jobs 2
//
// Run it from the module root (make mutants does).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/internal/mutate"
)

func main() { os.Exit(run()) }

func run() int {
	var (
		pkgs    = flag.String("pkg", "", "comma-separated `PACKAGES` to mutate, such as ref/call (default: every package of ref/)")
		max     = flag.Int("max", 0, "sample at most `N` mutants per package (0: all)")
		seed    = flag.Int64("seed", 1, "seed of the -max sample")
		jobs    = flag.Int("jobs", 1, "mutants built and run at once; keep it at 1 or 2 on a shared machine")
		timeout = flag.Duration("timeout", 0, "bound on one mutant's scenario run; a mutant that outlives it is killed and counted killed-by-timeout (default: 5× the unmutated area's time + 1m)")
		triage  = flag.String("triage", "internal/mutate/triage.txt", "triage list of survivors `FILE`")
		only    = flag.String("id", "", "run only the mutants with these comma-separated `IDS` (to check a triage)")
		list    = flag.Bool("list", false, "list the selected mutants and exit")
		jsonOut = flag.String("json", "", "write every mutant's result as JSON Lines to `FILE`")
		memory  = flag.Int64("memory", 0, "bound on the resident memory of one mutant's scenario run, in `MiB`; a run over it is killed and counted killed, with the timeouts (default: half the machine's memory, shared among the jobs)")
		onHost  = flag.Bool("unsandboxed", false, "run the scenarios on the host instead of in a PID namespace of their own; a mutant that signals the wrong processes can then kill any process of the machine")
	)
	flag.Parse()
	if flag.NArg() > 0 || *jobs < 1 || *max < 0 || *timeout < 0 || *memory < 0 {
		flag.Usage()
		return 2
	}
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 2
	}
	if _, err := os.Stat("go.mod"); err != nil {
		fmt.Fprintln(os.Stderr, "mutants: run me from the module root:", err)
		return 2
	}
	cfg := mutate.Config{Root: root, Max: *max, Seed: *seed, Jobs: *jobs, Timeout: *timeout, MemoryBound: *memory << 20}
	if cfg.MemoryBound == 0 {
		cfg.MemoryBound = mutate.DefaultMemoryBound(*jobs)
	}
	if !*list && !*onHost {
		if cfg.Sandbox, err = mutate.FindSandbox(); err != nil {
			fmt.Fprintf(os.Stderr, "mutants: %v\nmutants: -unsandboxed runs without one, at the risk of a mutant killing other processes\n", err)
			return 2
		}
	}
	if *pkgs == "" {
		for p := range mutate.Areas {
			cfg.Packages = append(cfg.Packages, p)
		}
		sort.Strings(cfg.Packages)
	} else {
		for _, p := range strings.Split(*pkgs, ",") {
			p = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(p), "./"), "/")
			if _, ok := mutate.Areas[p]; !ok {
				fmt.Fprintf(os.Stderr, "mutants: -pkg %q: no area for it; known: %s\n", p, known())
				return 2
			}
			cfg.Packages = append(cfg.Packages, p)
		}
	}
	tri := mutate.Triage{}
	if f, err := os.Open(*triage); err == nil {
		tri, err = mutate.ParseTriage(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "mutants: %s: %v\n", *triage, err)
			return 2
		}
	} else if !os.IsNotExist(err) {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 2
	}

	for id, v := range tri {
		if v.Scenario == "" {
			continue
		}
		if _, err := os.Stat("testdata/scripts/" + v.Scenario + ".txtar"); err != nil {
			fmt.Fprintf(os.Stderr, "mutants: %s: %s names scenario %s, which does not exist\n", *triage, id, v.Scenario)
			return 2
		}
	}
	cfg.Triage = tri

	byPkg, err := mutate.Collect(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 2
	}
	var ms []mutate.Mutant
	areas := map[string]bool{}
	want := map[string]bool{}
	for _, id := range strings.Split(*only, ",") {
		if id = strings.TrimSpace(id); id != "" {
			want[id] = true
		}
	}
	missing := map[string]bool{}
	for id := range want {
		missing[id] = true
	}
	for _, p := range cfg.Packages {
		for _, m := range byPkg[p] {
			if len(want) > 0 && !want[m.ID] {
				continue
			}
			delete(missing, m.ID)
			ms = append(ms, m)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "mutants: -id names no mutant of the selected packages: %v\n", keys(missing))
		return 2
	}
	if *list {
		for _, m := range ms {
			fmt.Printf("%s  %s\n", m.ID, m.Describe())
		}
		return 0
	}

	r, err := mutate.NewRunner(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 2
	}
	defer r.Close()
	for _, m := range ms {
		areas[r.Scenarios(m)] = true
	}
	start := time.Now()
	fmt.Fprintf(os.Stderr, "mutants: baseline of %d scenario set(s)...\n", len(areas))
	if err := r.Baseline(keys(areas)); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 2
	}
	var enc *json.Encoder
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutants:", err)
			return 2
		}
		defer f.Close()
		enc = json.NewEncoder(f)
	}
	var (
		mu      sync.Mutex
		results []mutate.Result
	)
	fmt.Fprintf(os.Stderr, "mutants: %d mutant(s), %d job(s)\n", len(ms), cfg.Jobs)
	// An interrupt stops the run and still removes the temporary files.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r.RunAll(ctx, ms, func(res mutate.Result) {
		mu.Lock()
		defer mu.Unlock()
		results = append(results, res)
		what := string(res.Status)
		if res.Killer != "" {
			what += " by " + res.Killer
		}
		if res.Status == mutate.Uncompilable {
			what += ": " + res.Detail
		}
		fmt.Fprintf(os.Stderr, "[%d/%d] %s %s (build %.1fs, run %.1fs)  %s\n", len(results), len(ms),
			res.Mutant.ID, what, res.Build.Seconds(), res.Run.Seconds(), res.Mutant.Describe())
		if enc != nil {
			enc.Encode(res)
		}
	})
	if ctx.Err() != nil {
		fmt.Fprintf(os.Stderr, "mutants: interrupted after %d of %d mutant(s)\n", len(results), len(ms))
		return 2
	}
	sum := mutate.Summarize(results, tri)
	fmt.Println()
	sum.Write(os.Stdout)
	fmt.Printf("\n%d mutant(s) in %s with %d job(s)\n", len(results), time.Since(start).Round(time.Second), cfg.Jobs)
	if !sum.OK() {
		fmt.Printf("FAIL: %d untriaged survivor(s), %d triaged as killed but surviving, kill rate %.1f%% (want ≥ %.0f%%)\n",
			sum.Total.Untriaged, sum.Total.StaleScenario, 100*sum.Total.KillRate(), 100*mutate.MinKillRate)
		return 1
	}
	fmt.Println("ok")
	return 0
}

func known() string {
	var ps []string
	for p := range mutate.Areas {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return strings.Join(ps, ", ")
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
