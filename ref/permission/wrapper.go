package permission

import (
	"slices"
	"strings"
)

// wrapper is how a command-running program that PERM-48 sees through reads
// its arguments: getopt with a "+" option string, as coreutils, util-linux
// and bash's own builtins do, so options end at the first word that is not
// one, or just after `--`. Anything outside the table (an option it does
// not list, an abbreviated long option, `--help`) makes the call unknown:
// guessing how an unknown option reads its argument would be guessing which
// word is the program.
type wrapper struct {
	flags   string          // short options without an argument
	withArg string          // short options taking an argument, attached (-n5) or the next word (-n 5)
	long    map[string]bool // long options, without the dashes; true when it takes an argument
	// stops are options (a short letter or a long name) after which the
	// program runs nothing: `command -v` looks a name up, `taskset -p` and
	// `ionice -p` act on running processes.
	stops    string
	operands int  // words read between the options and the command: timeout's duration, taskset's mask
	assigns  bool // env: NAME=value words (any word holding `=`) before the command, and a lone `-`
	numeric  bool // nice: -N, --N, -+N anywhere among the options is the adjustment
	// optional are short options whose argument is optional, so only ever
	// attached (prlimit -n100); longOptional the long ones, whose argument
	// only ever follows `=` (prlimit --nofile=100). getopt's `::`.
	optional     string
	longOptional map[string]bool
	// arch: setarch reads a first argument that does not start with `-` as
	// the architecture, before its options.
	arch bool
	// shell: with no program left the wrapper runs /bin/sh, which reads
	// its commands from standard input (setarch and its aliases), so the
	// call is unknown as `sh` alone is (PERM-49).
	shell bool
}

// wrappers are the programs PERM-48 sees through, by the name bash looks up
// (the command word's text after its last `/`). Each table was checked
// against coreutils 9.1, util-linux 2.38, GNU time 1.9 and bash 5.2, but for
// timeout's -f and -p (POSIX.1-2024's short forms, which later coreutils
// accept and 9.1 refuses) and env's -0 with a program (which GNU env
// refuses): there nothing runs, and reading the program only lets deny
// rules refuse more (PERM-48).
var wrappers = map[string]wrapper{
	"env": {flags: "i0v", withArg: "uC", assigns: true, long: map[string]bool{
		"ignore-environment": false, "null": false, "debug": false, "unset": true, "chdir": true}},
	"command": {flags: "p", stops: "vV"},
	"builtin": {},
	"exec":    {flags: "cl", withArg: "a"},
	"nice":    {withArg: "n", numeric: true, long: map[string]bool{"adjustment": true}},
	"nohup":   {},
	"timeout": {flags: "fpv", withArg: "ks", operands: 1, long: map[string]bool{
		"foreground": false, "preserve-status": false, "verbose": false, "kill-after": true, "signal": true}},
	"stdbuf": {withArg: "ioe", long: map[string]bool{"input": true, "output": true, "error": true}},
	"setsid": {flags: "cfw", long: map[string]bool{"ctty": false, "fork": false, "wait": false}},
	"time": {flags: "apqv", withArg: "fo", long: map[string]bool{
		"append": false, "portability": false, "quiet": false, "verbose": false, "format": true, "output": true}},
	"ionice": {flags: "t", withArg: "cnpPu", stops: "pPu", long: map[string]bool{
		"class": true, "classdata": true, "ignore": false, "pid": true, "pgid": true, "uid": true}},
	"taskset": {flags: "acp", stops: "p", operands: 1, long: map[string]bool{
		"all-tasks": false, "cpu-list": false, "pid": false}},
	// PERM-56: util-linux 2.38's other programs that run a command, read
	// from their --help: prlimit, choom, uclampset, setarch and the
	// personality aliases `setarch --list` prints.
	"prlimit": {withArg: "o", stops: "p", optional: "cdefilmnqrstuvxy", long: map[string]bool{
		"output": true, "pid": true, "noheadings": false, "raw": false, "verbose": false},
		longOptional: map[string]bool{"core": true, "data": true, "nice": true, "fsize": true,
			"sigpending": true, "memlock": true, "rss": true, "nofile": true, "msgqueue": true,
			"rtprio": true, "stack": true, "cpu": true, "nproc": true, "as": true, "locks": true, "rttime": true}},
	"choom": {withArg: "n", stops: "p", long: map[string]bool{"adjust": true, "pid": true}},
	"uclampset": {flags: "aRv", withArg: "mM", stops: "ps", long: map[string]bool{
		"all-tasks": false, "reset-on-fork": false, "verbose": false, "pid": true, "system": false}},
	"setarch": setarch(true),
}

// setarch is the row of util-linux's setarch (arch true) or of one of the
// personality aliases it is installed as, which take no architecture.
func setarch(arch bool) wrapper {
	return wrapper{flags: "3BFILRSTXZv", arch: arch, shell: true, long: map[string]bool{
		"32bit": false, "fdpic-funcptrs": false, "short-inode": false, "addr-compat-layout": false,
		"addr-no-randomize": false, "whole-seconds": false, "sticky-timeouts": false,
		"read-implies-exec": false, "mmap-page-zero": false, "3gb": false, "4gb": false,
		"uname-2.6": false, "verbose": false}}
}

// personalities are the names `setarch --list` prints on x86-64 (util-linux
// 2.38), each installed or installable as a link to setarch that runs it
// without an architecture argument. Other architectures' builds list other
// names (ppc32, s390, sparc64, …); those are not modelled and classify as
// ordinary commands.
var personalities = []string{"uname26", "linux32", "linux64", "i386", "i486", "i586", "i686", "athlon", "x86_64"}

func init() {
	for _, p := range personalities {
		wrappers[p] = setarch(false)
	}
	programs = map[string]program{"find": {find: true}, "git": {git: true}}
	for name := range runsText {
		programs[name] = program{runsText: true}
	}
	for name := range shells {
		p := programs[name]
		p.shell = true
		programs[name] = p
	}
	for name, wr := range wrappers {
		p := programs[name]
		p.wrapper = &wr
		programs[name] = p
	}
}

// program is what the tables say of one program name: runsText, shells,
// wrappers, and the two programs with arguments of their own to read (find
// and git). inner looks a name up once in programs, the union of the
// tables, instead of once in each: a chain of wrappers looks up every word
// (PERM-53).
type program struct {
	runsText, shell, find, git bool
	wrapper                    *wrapper
}

var programs map[string]program

// longStops are the long spellings of wrapper stops, by program.
var longStops = map[string]map[string]bool{
	"ionice":    {"pid": true, "pgid": true, "uid": true},
	"taskset":   {"pid": true},
	"prlimit":   {"pid": true},
	"choom":     {"pid": true},
	"uclampset": {"pid": true, "system": true},
}

// runsText are the programs and builtins PERM-49 makes unknown whatever
// their arguments: each runs as commands text the grammar never parses (an
// argument, standard input, a file or the output of another program), or
// runs a command through a grammar of options this kit does not model.
var runsText = map[string]bool{
	// bash builtins that run text as commands in this shell.
	"eval": true, "source": true, ".": true, "trap": true, "fc": true, "jobs": true,
	// programs that build a command line from input or run shell text.
	"xargs": true, "parallel": true, "watch": true,
	// programs that run a command as another user, or in another root or
	// namespace, whose default is an interactive shell reading stdin.
	"su": true, "sudo": true, "doas": true, "runuser": true, "pkexec": true, "sg": true,
	"setpriv": true, "chroot": true, "unshare": true, "nsenter": true, "systemd-run": true,
	// command runners whose option grammar is not modelled here.
	"flock": true, "script": true, "chrt": true, "strace": true, "ltrace": true, "busybox": true,
	// PERM-57: more privilege runners (systemd's run0, the sudo-rs names
	// Debian installs, pleaser, gosu, calife, Kerberos ksu, libcap's capsh,
	// sudoedit and pleaseedit, which run an editor as another user) ...
	"run0": true, "sudo-rs": true, "su-rs": true, "sudoedit": true, "please": true, "pleaseedit": true,
	"gosu": true, "calife": true, "ksu": true, "capsh": true,
	// ... daemontools' and runit's chain loaders, which run their
	// command with another user, environment or limit ...
	"setuidgid": true, "envuidgid": true, "envdir": true, "softlimit": true, "setlock": true,
	"pgrphack": true, "chpst": true,
	// ... multi-call binaries, which run the program their first argument
	// (or coreutils' --coreutils-prog=NAME) names, shells among them ...
	"toybox": true, "coreutils": true,
	// ... and coreutils' runcon, whose context operand is there or not
	// depending on its options, and util-linux's scriptlive, which runs a
	// recorded typescript's input in a shell.
	"runcon": true, "scriptlive": true,
}

// shells are the programs PERM-49 makes unknown unless their first argument
// is a script file: `-c` runs an argument as commands, no operand (or `-s`)
// runs standard input, and their other options take arguments (`-o`, `-O`,
// `--rcfile`) this kit does not model.
var shells = map[string]bool{
	"sh": true, "bash": true, "rbash": true, "dash": true, "ash": true, "zsh": true, "ksh": true,
	"ksh93": true, "mksh": true, "pdksh": true, "oksh": true, "yash": true, "posh": true,
	"fish": true, "csh": true, "tcsh": true,
}

// findRuns are the actions with which find runs a command (PERM-49).
var findRuns = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}

// programName is the name bash looks a command word up by: its text after
// the last `/`, or the whole word.
func programName(word string) string {
	return word[strings.LastIndexByte(word, '/')+1:]
}

// inner applies PERM-47 to PERM-49 to one simple command whose words have
// passed PERM-27 to PERM-29: it follows the chain of wrappers from the
// command word, appending to s.inners where the text each wrapped program
// runs as starts (at its word, or just after a `/` in it; the text ends
// with the segment, which simple fills in), and refuses a program that
// runs text or an option it cannot read.
func (s *segmenter) inner(words []rawWord) bool {
	i := 0
	for {
		w := words[i]
		word, ok := plainLit(w.text)
		if !ok {
			// PERM-48 with PERM-27: the program a wrapper runs is named by
			// a plain word, as a command word must be.
			return s.reject(ReasonCommandWord, "a quoted or escaped word after a wrapper")
		}
		start := w.start
		if i > 0 {
			if len(s.inners) == cap(s.inners) {
				// At most one more per word left, but for a `/`: grown
				// once for a chain of wrappers, not a quarter at a time.
				s.inners = slices.Grow(s.inners, len(words)-i+1)
			}
			s.inners = append(s.inners, innerRef{start: start})
		}
		name := programName(word)
		if name == "" {
			return true // a directory: bash runs nothing
		}
		if len(name) < len(word) {
			s.inners = append(s.inners, innerRef{start: start + len(word) - len(name)})
		}
		args := words[i+1:]
		p, ok := programs[name]
		if !ok {
			return true
		}
		if r := runsCode(name, p, args); r != "" {
			return s.reject(ReasonRunsText, r)
		}
		if r := writesFile(p, args); r != "" {
			return s.reject(ReasonWrites, r)
		}
		wr := p.wrapper
		if wr == nil {
			return true
		}
		next, runs, bad := wr.command(name, args)
		if bad != "" {
			return s.reject(ReasonWrapper, name+" "+bad)
		}
		if !runs && wr.shell {
			// PERM-56: setarch with no program runs /bin/sh, which reads
			// standard input as `sh` alone does (PERM-49).
			return s.reject(ReasonRunsText, name+" with no program")
		}
		if !runs {
			return true
		}
		i += 1 + next
	}
}

// runsCode reports, as a detail for the unknown reason, why program name
// with args runs text as commands (PERM-49), or "" when it does not.
func runsCode(name string, p program, args []rawWord) string {
	switch {
	case p.runsText:
		return name
	case p.shell:
		if len(args) == 0 {
			return name + " reading standard input"
		}
		v := wordValue(args[0].text)
		if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+") {
			return name + " with an option"
		}
		if processInput(v) {
			return name + " reading a script from " + v
		}
	case p.find:
		for _, a := range args {
			if v := wordValue(a.text); findRuns[v] {
				return "find " + v
			}
		}
	}
	return ""
}

// processInput reports whether a shell's script operand names, or may
// name, a file whose text another process supplies while the command runs
// (PERM-55): standard input, a descriptor or a terminal. Those live under
// /dev and /proc, however the path is spelled (`/dev//stdin`,
// `/proc/thread-self/fd/0`, `/usr/../dev/fd/0`), or, from a directory
// there (`cd /dev/fd && sh 0`), carry a name kept for them: stdin, stdout,
// stderr, tty, console, or a number.
func processInput(path string) bool {
	parts := strings.Split(path, "/")
	for _, p := range parts {
		if p == "dev" || p == "proc" {
			return true
		}
	}
	switch last := parts[len(parts)-1]; last {
	case "stdin", "stdout", "stderr", "tty", "console":
		return true
	default:
		return last != "" && strings.Trim(last, "0123456789") == ""
	}
}

// writesFile reports, as a detail for the unknown reason, an option with
// which a program a read-only allow rule names writes a file (PERM-58), or
// "" when there is none: git's --output=FILE, which git diff, log, show and
// every command taking diff options accept, spelled out or as any prefix
// getopt-like parsers could take for it.
func writesFile(p program, args []rawWord) string {
	if !p.git {
		return ""
	}
	for _, a := range args {
		v := wordValue(a.text)
		opt, _, _ := strings.Cut(v, "=")
		if len(opt) > 2 && strings.HasPrefix(opt, "--") && strings.HasPrefix("--output", opt) {
			return "git " + v
		}
	}
	return ""
}

// command finds the word wr runs as a program among args, the words after
// the wrapper's own: its index, whether anything runs at all, and, when an
// argument is outside the table, which one.
func (wr wrapper) command(name string, args []rawWord) (int, bool, string) {
	i := 0
	if wr.arch && len(args) > 0 && !strings.HasPrefix(wordValue(args[0].text), "-") {
		i++ // setarch's architecture
	}
options:
	for i < len(args) {
		v := wordValue(args[i].text)
		switch {
		case v == "--":
			i++
			break options
		case wr.numeric && isAdjustment(v):
			i++
		case strings.HasPrefix(v, "--"):
			opt, _, hasValue := strings.Cut(v[2:], "=")
			takes, known := wr.long[opt]
			switch {
			case wr.longOptional[opt]:
				// its value, if any, is in this word
			case !known || (hasValue && !takes):
				return 0, false, "option " + v
			case longStops[name][opt]:
				return 0, false, ""
			case takes && !hasValue:
				i++ // the value is the next word
			}
			i++
		case strings.HasPrefix(v, "-") && v != "-":
			skip, stop, bad := wr.cluster(v[1:])
			if bad != "" || stop {
				return 0, false, bad
			}
			i += 1 + skip
		default:
			break options // the first operand, `-` included, ends the options
		}
	}
	i += wr.operands
	if wr.assigns {
		if i < len(args) && wordValue(args[i].text) == "-" {
			i++ // env's `-`, the same as -i, once, right after the options
		}
		for i < len(args) && strings.Contains(wordValue(args[i].text), "=") {
			i++
		}
	}
	if i >= len(args) {
		return 0, false, "" // no command: nothing runs
	}
	return i, true, ""
}

// cluster reads one word of short options (without its `-`) as getopt
// does: letters until one takes an argument, which is the rest of the word
// or, when nothing is left, the next word (skip 1).
func (wr wrapper) cluster(letters string) (skip int, stop bool, bad string) {
	for j := 0; j < len(letters); j++ {
		c := letters[j]
		switch {
		case strings.IndexByte(wr.stops, c) >= 0:
			return 0, true, ""
		case strings.IndexByte(wr.flags, c) >= 0:
		case strings.IndexByte(wr.optional, c) >= 0:
			return 0, false, "" // the rest of the word is its argument
		case strings.IndexByte(wr.withArg, c) >= 0:
			if j == len(letters)-1 {
				return 1, false, ""
			}
			return 0, false, ""
		default:
			return 0, false, "option -" + string(c)
		}
	}
	return 0, false, ""
}

// isAdjustment reports whether v is nice's legacy adjustment: `-`, then an
// optional `-` or `+`, then a digit.
func isAdjustment(v string) bool {
	if len(v) < 2 || v[0] != '-' {
		return false
	}
	d := v[1:]
	if d[0] == '-' || d[0] == '+' {
		d = d[1:]
	}
	return d != "" && d[0] >= '0' && d[0] <= '9'
}
