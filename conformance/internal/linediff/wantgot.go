package linediff

import (
	"fmt"
	"regexp"
	"strings"
)

// hunkHeader matches a unified diff's hunk header.
var hunkHeader = regexp.MustCompile(`^@@ -(\d+,\d+) \+(\d+,\d+) @@(.*)$`)

// WantGot rewrites every diff that testscript's cmp and cmpenv logged in
// log in the direction of every other diff the kit prints, -want +got:
//
//	diff WANT GOT
//	--- WANT (want)
//	+++ GOT (got)
//	@@ -1,2 +1,2 @@
//	-expected
//	+actual
//
// cmp names its two sides without saying which is expected (cmp FILE1
// FILE2 prints FILE1's lines as -), and scenarios use both orders, so the
// side that holds what the scenario expected is told apart by (wantSide):
// a file named want… or got…; else stdout or stderr is expected when the
// command that wrote it was exec (the scenario computing the expected
// text) and what came otherwise; else FILE2 is expected. Within each
// change the removed lines come first, as in any unified diff. The rest of
// log is unchanged.
func WantGot(log string) string {
	lines := strings.Split(log, "\n")
	var out []string
	lastCmd := ""
	for i := 0; i < len(lines); i++ {
		first, second, ok := cmpHeader(lines, i)
		if !ok {
			if cmd, ok := strings.CutPrefix(lines[i], "> "); ok && !isCheck(cmd) {
				lastCmd = cmd
			}
			out = append(out, lines[i])
			continue
		}
		flip := !wantFirst(first, second, lastCmd)
		want, got := first, second
		if flip {
			want, got = second, first
		}
		out = append(out, "diff "+want+" "+got, "--- "+want+" (want)", "+++ "+got+" (got)")
		i += 3
		var minus, plus []string
		flush := func() {
			out = append(out, minus...)
			out = append(out, plus...)
			minus, plus = nil, nil
		}
		for ; i < len(lines); i++ {
			l := lines[i]
			if m := hunkHeader.FindStringSubmatch(l); m != nil {
				flush()
				if flip {
					l = fmt.Sprintf("@@ -%s +%s @@%s", m[2], m[1], m[3])
				}
				out = append(out, l)
				continue
			}
			if l == "" || !strings.ContainsAny(l[:1], " -+") {
				break
			}
			switch {
			case l[0] == ' ':
				flush()
				out = append(out, l)
			case (l[0] == '-') != flip:
				minus = append(minus, "-"+l[1:])
			default:
				plus = append(plus, "+"+l[1:])
			}
		}
		flush()
		i-- // the line that ended the diff is not part of it
	}
	return strings.Join(out, "\n")
}

// wantFirst reports whether the first side of "cmp first second" holds
// what the scenario expected; lastCmd is the command that last wrote
// stdout and stderr.
func wantFirst(first, second, lastCmd string) bool {
	if r := role(first); r != "" {
		return r == "want"
	}
	if r := role(second); r != "" {
		return r == "got"
	}
	name, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lastCmd), "!")), " ")
	byExec := name == "exec"
	switch {
	case first == "stdout" || first == "stderr":
		return byExec
	case second == "stdout" || second == "stderr":
		return !byExec
	}
	return false
}

// role is "want" or "got" for a file named so (want.txt, want-argv.txt,
// $WORK/got), else "".
func role(name string) string {
	base := name[strings.LastIndexAny(name, "/")+1:]
	switch {
	case strings.HasPrefix(base, "want"):
		return "want"
	case strings.HasPrefix(base, "got"):
		return "got"
	}
	return ""
}

// isCheck reports whether a scenario command only checks or moves what
// an earlier one wrote, leaving stdout and stderr in place.
func isCheck(cmd string) bool {
	name, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cmd), "!")), " ")
	switch name {
	case "stdout", "stderr", "cmp", "cmpenv", "cp", "exists", "grep", "env", "capture", "field", "text", "mv", "rm", "mkdir", "chmod":
		return true
	}
	return false
}

// cmpHeader reports whether lines[i:] start a diff as testscript's cmp
// logs it, and the names it compared.
func cmpHeader(lines []string, i int) (got, want string, ok bool) {
	if i+3 >= len(lines) {
		return "", "", false
	}
	names, ok := strings.CutPrefix(lines[i], "diff ")
	if !ok {
		return "", "", false
	}
	got, want, ok = strings.Cut(names, " ")
	if !ok || strings.Contains(want, " ") || lines[i+1] != "--- "+got || lines[i+2] != "+++ "+want || !hunkHeader.MatchString(lines[i+3]) {
		return "", "", false
	}
	return got, want, true
}
