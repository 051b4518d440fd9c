package permission

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The second half of the PERM-32 oracle: every program bash runs for a
// segment is named by the segment's command word or by an inner command
// (PERM-47), and none of them runs text no rule sees (PERM-49). It is
// written apart from wrapper.go on purpose: the wrappers' option grammars
// are regular expressions over the words' values, each word followed by a
// NUL, rather than a loop over getopt letters, so that one cannot share a
// mistake with the other. The values come from mvdan.cc/sh's own quote
// removal (expand.Fields), not from wordValue.

// oracleUsage is one wrapper's usage: the options it accepts before its
// command, as one regular expression matching a single option with its
// argument; the options after which it runs nothing; and what it reads
// between its options and its command.
type oracleUsage struct {
	option   *regexp.Regexp
	stop     *regexp.Regexp // nil: no stop option
	operands int
	env      bool // a `-`, then NAME=value words
	arch     bool // setarch: a first word not starting with `-` is read before the options
	shell    bool // with no program it runs /bin/sh (PERM-56)
}

// usage builds the option expression: short flags F, short options with an
// argument A (attached or as the next word), long flags, long options with
// an argument (after `=` or as the next word), and extra alternatives. An
// option missing the next word its argument needs is read too: no word is
// then left, and the wrapper runs nothing (PERM-48).
func usage(flags, withArg string, longFlags, longArgs []string, extra ...string) *regexp.Regexp {
	var alts []string
	if flags != "" {
		alts = append(alts, `-[`+flags+`]+\x00`)
	}
	if withArg != "" {
		f := ""
		if flags != "" {
			f = `[` + flags + `]*`
		}
		alts = append(alts, `-`+f+`[`+withArg+`][^\x00]+\x00`, `-`+f+`[`+withArg+`]\x00(?:[^\x00]*\x00)?`)
	}
	if len(longFlags) > 0 {
		alts = append(alts, `--(?:`+strings.Join(longFlags, "|")+`)\x00`)
	}
	if len(longArgs) > 0 {
		l := strings.Join(longArgs, "|")
		alts = append(alts, `--(?:`+l+`)=[^\x00]*\x00`, `--(?:`+l+`)\x00(?:[^\x00]*\x00)?`)
	}
	alts = append(alts, extra...)
	if len(alts) == 0 {
		return regexp.MustCompile(`^\b\B`) // matches nothing
	}
	return regexp.MustCompile(`^(?:` + strings.Join(alts, "|") + `)`)
}

var oracleWrappers = map[string]oracleUsage{
	"env":     {option: usage("i0v", "uC", []string{"ignore-environment", "null", "debug"}, []string{"unset", "chdir"}), env: true},
	"command": {option: usage("p", "", nil, nil), stop: regexp.MustCompile(`^-p*[vV]`)},
	"builtin": {option: usage("", "", nil, nil)},
	"exec":    {option: usage("cl", "a", nil, nil)},
	"nice":    {option: usage("", "n", nil, []string{"adjustment"}, `-[-+]?[0-9][^\x00]*\x00`)},
	"nohup":   {option: usage("", "", nil, nil)},
	"timeout": {option: usage("fpv", "ks", []string{"foreground", "preserve-status", "verbose"}, []string{"kill-after", "signal"}), operands: 1},
	"stdbuf":  {option: usage("", "ioe", nil, []string{"input", "output", "error"})},
	"setsid":  {option: usage("cfw", "", []string{"ctty", "fork", "wait"}, nil)},
	"time":    {option: usage("apqv", "fo", []string{"append", "portability", "quiet", "verbose"}, []string{"format", "output"})},
	"ionice": {option: usage("t", "cn", []string{"ignore"}, []string{"class", "classdata"}),
		stop: regexp.MustCompile(`^(?:-t*[pPu]|--(?:pid|pgid|uid)(?:=|\x00))`)},
	"taskset": {option: usage("ac", "", []string{"all-tasks", "cpu-list"}, nil),
		stop: regexp.MustCompile(`^(?:-[ac]*p|--pid\x00)`), operands: 1},
	// PERM-56. prlimit's resource options take an optional argument: only
	// attached (-n100) or after `=` (--nofile=100), never the next word.
	"prlimit": {option: usage("", "o", []string{"noheadings", "raw", "verbose", prlimitResources}, []string{"output"},
		`-[cdefilmnqrstuvxy][^\x00]*\x00`, `--(?:`+prlimitResources+`)=[^\x00]*\x00`),
		stop: regexp.MustCompile(`^(?:-p|--pid(?:=|\x00))`)},
	"choom": {option: usage("", "n", nil, []string{"adjust"}), stop: regexp.MustCompile(`^(?:-p|--pid(?:=|\x00))`)},
	"uclampset": {option: usage("aRv", "mM", []string{"all-tasks", "reset-on-fork", "verbose"}, nil),
		stop: regexp.MustCompile(`^(?:-[aRv]*[ps]|--(?:system\x00|pid(?:=|\x00)))`)},
	"setarch": {option: usage("3BFILRSTXZv", "", setarchLong, nil), arch: true, shell: true},
	"linux32": {option: usage("3BFILRSTXZv", "", setarchLong, nil), shell: true},
}

// prlimitResources are prlimit's long resource options (util-linux 2.38).
const prlimitResources = "core|data|nice|fsize|sigpending|memlock|rss|nofile|msgqueue|rtprio|stack|cpu|nproc|as|locks|rttime"

var setarchLong = []string{"32bit", "fdpic-funcptrs", "short-inode", "addr-compat-layout", "addr-no-randomize",
	"whole-seconds", "sticky-timeouts", "read-implies-exec", "mmap-page-zero", "3gb", "4gb", `uname-2\.6`, "verbose"}

func init() {
	// The personality names `setarch --list` prints on x86-64 read as linux32.
	for _, p := range strings.Fields("uname26 linux64 i386 i486 i586 i686 athlon x86_64") {
		oracleWrappers[p] = oracleWrappers["linux32"]
	}
}

// oracleRunsText reports whether a program of this name with these argument
// values runs text as commands (PERM-49), listed again here by hand.
func oracleRunsText(name string, args []string) bool {
	switch name {
	case "eval", "source", ".", "trap", "fc", "jobs", "xargs", "parallel", "watch",
		"su", "sudo", "doas", "runuser", "pkexec", "sg", "setpriv", "chroot", "unshare", "nsenter",
		"systemd-run", "flock", "script", "chrt", "strace", "ltrace", "busybox",
		// PERM-57
		"run0", "sudo-rs", "su-rs", "sudoedit", "please", "pleaseedit", "gosu", "calife", "ksu", "capsh",
		"setuidgid", "envuidgid", "envdir", "softlimit", "setlock", "pgrphack", "chpst",
		"toybox", "coreutils", "runcon", "scriptlive":
		return true
	case "sh", "bash", "rbash", "dash", "ash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "oksh",
		"yash", "posh", "fish", "csh", "tcsh":
		return len(args) == 0 || strings.HasPrefix(args[0], "-") || strings.HasPrefix(args[0], "+") ||
			oracleProcessFile.MatchString(args[0])
	case "find":
		return slices.ContainsFunc(args, func(a string) bool {
			return a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir"
		})
	}
	return false
}

// oracleProcessFile matches a script operand PERM-55 makes unknown: a
// component dev or proc, or a last component kept for a process's input.
var oracleProcessFile = regexp.MustCompile(`(?:^|/)(?:dev|proc)(?:/|$)|(?:^|/)(?:stdin|stdout|stderr|tty|console|[0-9]+)$`)

// oracleWritesFile matches a git argument PERM-58 makes unknown.
var oracleWritesFile = regexp.MustCompile(`^--(?:o|ou|out|outp|outpu|output)(?:=|$)`)

// oracleCommand returns the index among args of the word wrapper u runs as
// a program, or -1 when it runs nothing, or an error when an argument is
// not one the usage reads.
func oracleCommand(u oracleUsage, args []string) (int, error) {
	rest, i := strings.Join(args, "\x00")+"\x00", 0
	if len(args) == 0 {
		rest = ""
	}
	if u.arch && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		rest, i = rest[len(args[0])+1:], 1
	}
	for rest != "" {
		if u.stop != nil && u.stop.MatchString(rest) {
			return -1, nil
		}
		if strings.HasPrefix(rest, "--\x00") {
			rest, i = rest[3:], i+1
			break
		}
		m := u.option.FindString(rest)
		if m == "" {
			if strings.HasPrefix(rest, "-") && !strings.HasPrefix(rest, "-\x00") {
				return 0, fmt.Errorf("option %q is outside the usage", strings.SplitN(rest, "\x00", 2)[0])
			}
			break
		}
		rest, i = rest[len(m):], i+strings.Count(m, "\x00")
	}
	i += u.operands
	if u.env {
		if i < len(args) && args[i] == "-" {
			i++
		}
		for i < len(args) && strings.Contains(args[i], "=") {
			i++
		}
	}
	if i >= len(args) {
		return -1, nil
	}
	return i, nil
}

// oracleInner lists the inner commands (PERM-47) of one simple command
// whose words have the given values, or says why it should not have
// classified at all.
func oracleInner(command string, ce *syntax.CallExpr, values []string) ([]string, error) {
	end := int(ce.End().Offset())
	var inner []string
	for i := 0; ; {
		word := ce.Args[i].Lit()
		if word == "" || word != values[i] || strings.ContainsAny(word, `\'"`) {
			return nil, fmt.Errorf("program word %d is not a plain literal", i)
		}
		start := int(ce.Args[i].Pos().Offset())
		if i > 0 {
			inner = append(inner, command[start:end])
		}
		slash := strings.LastIndex(word, "/")
		name := word[slash+1:]
		if name == "" {
			return inner, nil
		}
		if slash >= 0 {
			inner = append(inner, command[start+slash+1:end])
		}
		if oracleRunsText(name, values[i+1:]) {
			return nil, fmt.Errorf("%s runs text as commands", name)
		}
		if name == "git" && slices.ContainsFunc(values[i+1:], oracleWritesFile.MatchString) {
			return nil, fmt.Errorf("git writes a file named by an option")
		}
		u, ok := oracleWrappers[name]
		if !ok {
			return inner, nil
		}
		next, err := oracleCommand(u, values[i+1:])
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if next < 0 && u.shell {
			return nil, fmt.Errorf("%s runs a shell reading standard input", name)
		}
		if next < 0 {
			return inner, nil
		}
		i += 1 + next
	}
}
