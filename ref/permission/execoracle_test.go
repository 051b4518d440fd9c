package permission

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// realWrappers are the wrappers PERM-48 reads whose real program the
// execution oracle runs, so that bash's and the wrappers' own parsing
// decide what runs. setsid is run with -w, or it may return before the
// program it started has logged itself.
var realWrappers = map[string]string{
	"env": "", "nice": "", "nohup": "", "timeout": "", "stdbuf": "", "setsid": "-w",
	"time": "", "ionice": "", "taskset": "",
	// PERM-56 (util-linux 2.38). uclampset fails without kernel support for
	// utilisation clamping and then runs nothing, which proves nothing but
	// is no violation either.
	"prlimit": "", "choom": "", "uclampset": "", "setarch": "", "linux32": "", "linux64": "",
	"i386": "", "x86_64": "",
}

// wrapperEdgeCases are option spellings the corpus does not hold, run
// only here, against the real wrappers.
var wrapperEdgeCases = []string{
	"nice -n 5 -10 rm x", "nice --5 rm x", "nice -+5 rm x", "nice -n5 -- rm x",
	"env -iu X rm x", "env -C . rm x", "env --unset X --chdir=. rm x", "env -- - rm x", "env - - rm x",
	"timeout -k1 -sKILL 5 rm x", "timeout --kill-after 1 5 rm x", "timeout -fpv 5 rm x", "timeout 5 -s KILL rm x",
	"stdbuf -i0 -o L --error=0 rm x", "setsid -cf rm x", "command -p -- rm x", "builtin -- command rm x",
	"exec -la name rm x", "ionice -tc3 -n 7 rm x", "taskset -ac 0 rm x", "command time -o out -a rm x",
	"nohup nice timeout 5 env setsid stdbuf -oL rm x", "env rm=1 x", "timeout 5 -- rm x",
	"prlimit --nofile=100 rm x", "prlimit -n100 -c rm x", "prlimit -n 100 rm x", "prlimit --core rm x",
	"prlimit -o RESOURCE --raw -- rm x", "choom -n 0 rm x", "choom --adjust=0 -- rm x",
	"setarch x86_64 -R rm x", "setarch -R rm x", "setarch linux32 -3 --uname-2.6 rm x", "linux32 -BR rm x",
	"linux64 --addr-no-randomize -- rm x", "i386 x86_64 rm x", "x86_64 -v rm x", "setarch -v i386 rm x",
}

// stubName is a word that can name a stub program in the test's PATH.
var stubName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)

// TestInnerCommandsMatchExecution is the execution half of the PERM-32
// oracle: it runs commands that classify in bash 5, with a PATH holding
// only stubs that log the name they were run by (and then run the real
// wrapper, for the wrappers of PERM-48), and checks that every program
// that ran is named by a segment's command word or an inner command's
// (PERM-47): what ran is what a deny rule sees. Commands holding a `/` are
// left out, because a path escapes the stub PATH and would run the real
// program.
func TestInnerCommandsMatchExecution(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bash once per command")
	}
	bash := bash5(t)
	var commands []string
	for _, e := range load[commandEntry](t, "commands.json") {
		commands = append(commands, e.Command)
	}
	for _, e := range load[engineEntry](t, "engine.json") {
		var a struct{ Command string }
		if json.Unmarshal(e.Arguments, &a) == nil && a.Command != "" {
			commands = append(commands, a.Command)
		}
	}
	for _, command := range wrapperEdgeCases {
		if c := Classify(command); c.Unknown {
			t.Errorf("edge case %q is unknown (%s), so execution never checks it", command, c.Reason)
		}
	}
	commands = append(commands, wrapperEdgeCases...)
	checked, ran := 0, 0
	for _, command := range commands {
		c := Classify(command)
		if c.Unknown || strings.Contains(command, "/") || len(command) > 500 {
			continue
		}
		names := execNames(t, bash, command)
		checked++
		ran += len(names)
		visible := map[string]bool{}
		for _, s := range append(slices.Clip(c.Segments), c.Inner...) {
			visible[programName(strings.FieldsFunc(s, isBashBlank)[0])] = true
		}
		for _, n := range names {
			if !visible[n] {
				t.Errorf("%q ran %s, which no segment or inner command %q names", command, n, append(slices.Clip(c.Segments), c.Inner...))
			}
		}
	}
	if checked < 100 || ran < 100 {
		t.Fatalf("checked %d commands that ran %d programs; the oracle saw too little to mean anything", checked, ran)
	}
	t.Logf("%d commands ran %d programs, each one named where a deny rule looks", checked, ran)
}

func isBashBlank(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }

// execNames runs command in bash in a fresh directory whose PATH holds a
// stub for every word that could name a program, and returns the names the
// stubs were run by, in order.
func execNames(t *testing.T, bash, command string) []string {
	t.Helper()
	dir := t.TempDir()
	bin, work, log := filepath.Join(dir, "bin"), filepath.Join(dir, "work"), filepath.Join(dir, "log")
	for _, d := range []string{bin, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range strings.FieldsFunc(command, func(r rune) bool { return strings.ContainsRune(" \t\n;&|'\"", r) }) {
		if !stubName.MatchString(w) {
			continue
		}
		script := "#!/bin/sh\necho " + w + " >>" + log + "\n"
		if extra, ok := realWrappers[w]; ok {
			real, err := exec.LookPath(w)
			if err != nil {
				t.Skipf("%s not installed", w)
			}
			script += "exec " + real + " " + extra + ` "$@"` + "\n"
		}
		if err := os.WriteFile(filepath.Join(bin, w), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", command)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + bin, "HOME=" + work}
	cmd.Run() // exit statuses are beside the point: only what ran is
	data, err := os.ReadFile(log)
	if err != nil {
		return nil // nothing ran but builtins
	}
	return strings.Fields(string(data))
}

// TestExecutionOracleCanFail makes sure the execution oracle sees what a
// wrapper runs: without its inner commands, `nohup rm x` runs a program
// (rm) that its one segment does not name.
func TestExecutionOracleCanFail(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bash")
	}
	bash := bash5(t)
	for _, command := range []string{"nohup rm x", "timeout -s KILL 5 nice -n 5 rm x", "env -u X A=1 rm x"} {
		names := execNames(t, bash, command)
		if !slices.Contains(names, "rm") {
			t.Errorf("%q: the stubs saw %q, not rm", command, names)
		}
		if seg := Classify(command).Segments; len(seg) != 1 || programName(strings.Fields(seg[0])[0]) == "rm" {
			t.Errorf("%q: segments %q already name rm, so the case proves nothing", command, seg)
		}
	}
}
