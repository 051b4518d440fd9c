package permission

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// oracleLocales are the locales PERM-50 and PERM-51 were derived from
// (testdata/locales.md), with the charmap `locale charmap` reports when the
// locale is installed; testdata/install-locales.sh builds them. C.UTF-8 is
// the baseline every glibc has.
var oracleLocales = []struct{ name, charmap string }{
	{"C.UTF-8", "UTF-8"},
	{"zh_TW.BIG5", "BIG5"},
	{"zh_HK.BIG5-HKSCS", "BIG5-HKSCS"},
	{"zh_CN.GBK", "GBK"},
	{"zh_CN.GB18030", "GB18030"},
	{"ja_JP.SJIS", "SHIFT_JIS"},
	{"ja_JP.CP932", "WINDOWS-31J"},
	{"ko_KR.JOHAB", "JOHAB"},
	{"zh_TW.EUC-TW", "EUC-TW"},
	{"en_US.ISO-8859-1", "ISO-8859-1"},
}

// installedLocales returns the oracle's locales, skipping the test when
// one is missing, or failing it where APEXCHECK_REQUIRE_PROGRAMS is set (as
// .ci/run sets it, after running testdata/install-locales.sh): CI must not
// pass by skipping.
func installedLocales(t *testing.T) []string {
	t.Helper()
	var names, missing []string
	for _, l := range oracleLocales {
		cmd := exec.Command("locale", "charmap")
		cmd.Env = append(localeEnv(l.name), "PATH="+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil || strings.TrimSpace(string(out)) != l.charmap {
			missing = append(missing, l.name)
			continue
		}
		names = append(names, l.name)
	}
	if len(missing) > 0 {
		msg := "locales not installed: " + strings.Join(missing, " ") + " (run ref/permission/testdata/install-locales.sh)"
		if os.Getenv("APEXCHECK_REQUIRE_PROGRAMS") != "" {
			t.Fatal(msg + ", and APEXCHECK_REQUIRE_PROGRAMS is set")
		}
		t.Skip(msg)
	}
	return names
}

// localeEnv selects a locale the way a login rc would, keeping LOCPATH for
// locales built outside the system archive.
func localeEnv(name string) []string {
	env := []string{"LC_ALL=" + name}
	if p := os.Getenv("LOCPATH"); p != "" {
		env = append(env, "LOCPATH="+p)
	}
	return env
}

// localeChars end in bytes the charsets read differently: 中 (E4 B8 AD), ぁ (E3 81 81, a SHIFT_JIS pair then a lead), 第
// (E7 AC AC), 日本, é (C3 A9), ª (C2 AA, two letters in ISO-8859-1), ｱ (EF
// BD B1, a SHIFT_JIS single byte), 𠎡 (F0 A0 8E A1, EUC-TW's four-byte
// start), 한, ü and €.
var localeChars = []string{"中", "ぁ", "第", "日本", "é", "ª", "ｱ", "\U000203a1", "한", "ü", "€"}

// localeTemplates are commands built around one of localeChars (C): each
// runs rm, a program it names only where some locale moves a token
// boundary, or names it plainly as a control.
var localeTemplates = []string{
	`ls C\; rm x`, `ls C\| rm x`, `ls C\&rm x`, `ls C\ rm x`, `ls C\'; rm x; echo '`,
	`echo "C\" ; rm x ; echo C\""`, `echo C|rm x`, `echo C; rm x`, `nohup ls C\; rm x`,
	"echo C1'\nrm x\n'", "echo C1\"\nrm x\n\"", "echo C1 rm x", "echo 'C1'\nrm x\necho ''",
	"echo C1;rm x", "echo 'C|x' 'C\\' C", "echo C12 'C1x' \"C\"", `C=1 rm x`, `CC=1 rm x`,
	"echo C`rm x`", "echo C~ C^ C@ C{a,b}", "timeout 5 C\\; rm x", "echo x=C rm",
}

// localeCommands is the generated corpus: every template with every
// character.
func localeCommands() []string {
	var out []string
	for _, tpl := range localeTemplates {
		for _, c := range localeChars {
			out = append(out, strings.ReplaceAll(tpl, "C", c))
		}
	}
	return out
}

// TestLocaleOracle is PERM-32 under every locale of PERM-50 and PERM-51:
// each command of the corpus and of the generated locale corpus that
// classifies is run by real bash in each locale, with a PATH of stubs that
// log the name they were run by and a command_not_found_handle that logs
// any other name, and every program that ran must be named by a segment's
// command word or an inner command's. An unsafe allow is a command that
// classifies and runs a program none of them names.
func TestLocaleOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bash once per command and locale")
	}
	bash := bash5(t)
	locales := installedLocales(t)
	var commands []string
	for _, e := range load[commandEntry](t, "commands.json") {
		commands = append(commands, e.Command)
	}
	generated := localeCommands()
	commands = append(commands, generated...)
	runs, unknown, classified := 0, 0, 0
	for _, command := range commands {
		c := Classify(command)
		if c.Unknown {
			unknown++
			continue
		}
		if strings.Contains(command, "/") || len(command) > 500 {
			continue
		}
		classified++
		for locale, names := range execInLocales(t, bash, command, locales) {
			runs++
			if bad := unnamed(c, names); len(bad) > 0 {
				t.Errorf("unsafe under %s: %q classifies as %q (inner %q), yet ran %q", locale, command, c.Segments, c.Inner, bad)
			}
		}
	}
	if classified < 100 {
		t.Fatalf("only %d commands classified; the oracle saw too little to mean anything", classified)
	}
	t.Logf("%d commands (%d generated): %d unknown, %d classified and run in %d locales (%d runs), 0 unsafe allows expected",
		len(commands), len(generated), unknown, classified, len(locales), runs)
}

// unnamed lists the programs that ran and that no segment or inner
// command of c names (PERM-32, PERM-47).
func unnamed(c Classification, names []string) []string {
	visible := map[string]bool{}
	for _, s := range append(slices.Clip(c.Segments), c.Inner...) {
		visible[programName(strings.FieldsFunc(s, isBashBlank)[0])] = true
	}
	var bad []string
	for _, n := range names {
		if !visible[n] {
			bad = append(bad, n)
		}
	}
	return bad
}

// execInLocales runs command in bash once per locale, in a fresh directory
// whose PATH holds a stub for every word that could name a program, and
// returns, per locale, the names of the programs bash ran or tried to run.
func execInLocales(t *testing.T, bash, command string, locales []string) map[string][]string {
	t.Helper()
	dir := t.TempDir()
	bin, log := filepath.Join(dir, "bin"), filepath.Join(dir, "log")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, w := range strings.FieldsFunc(command, func(r rune) bool { return strings.ContainsRune(" \t\n;&|'\"\\`", r) }) {
		if !stubName.MatchString(w) {
			continue
		}
		script := "#!/bin/sh\nprintf '%s\\0' " + w + " >>" + log + "\n"
		if _, ok := realWrappers[w]; ok {
			real, err := exec.LookPath(w)
			if err != nil {
				t.Skipf("%s not installed", w)
			}
			script += "exec " + real + ` "$@"` + "\n"
		}
		if err := os.WriteFile(filepath.Join(bin, w), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string][]string{}
	for _, locale := range locales {
		work := filepath.Join(dir, "work-"+locale)
		if err := os.Mkdir(work, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(log)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", command)
		cmd.Dir = work
		// A name bash finds nowhere is logged too: a swallowed separator
		// makes names such as `中;rm` that no stub could be written for.
		cmd.Env = append(localeEnv(locale), "PATH="+bin, "HOME="+work,
			"BASH_FUNC_command_not_found_handle%%=() { printf '%s\\0' \"$1\" >>"+log+"; return 127; }")
		cmd.Run() // exit statuses are beside the point: only what ran is
		cancel()
		data, _ := os.ReadFile(log)
		names := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
		if len(data) == 0 {
			names = nil
		}
		out[locale] = names
	}
	return out
}

// TestLocaleOracleCanFail makes sure the oracle sees what a locale runs:
// with PERM-50 and PERM-51 switched off (the command read as bytes, as
// mvdan.cc/sh reads it), each of these classifies, and bash runs rm in the
// locale named, which no segment names.
func TestLocaleOracleCanFail(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bash")
	}
	bash := bash5(t)
	installedLocales(t)
	for _, tc := range []struct{ locale, command string }{
		{"zh_TW.BIG5", `ls 中\; rm x`},
		{"zh_CN.GBK", `echo "中\" ; rm x ; echo 中\""`},
		{"zh_CN.GB18030", "echo 中1'\nrm x\n'"},
		{"zh_TW.EUC-TW", "echo \U000203a1\"\nrm x\n\""},
		{"ja_JP.SJIS", `ls ぁ\; rm x`},
		{"en_US.ISO-8859-1", "ª=1 rm x"},
	} {
		if c := Classify(tc.command); !c.Unknown {
			t.Errorf("%q classifies (%q), so this case no longer tests the oracle", tc.command, c.Segments)
			continue
		}
		c := classifyBytes(tc.command)
		if c.Unknown {
			t.Errorf("%q is unknown even read as bytes (%s): the case proves nothing", tc.command, c.Reason)
			continue
		}
		names := execInLocales(t, bash, tc.command, []string{tc.locale})[tc.locale]
		if bad := unnamed(c, names); !slices.Contains(bad, "rm") {
			t.Errorf("%q under %s: read as bytes it is %q, and the oracle finds nothing unnamed among %q", tc.command, tc.locale, c.Segments, names)
		}
	}
}

// classifyBytes is the segmenter without PERM-50 and PERM-51: the command
// with every byte from 0x80 up replaced by `%` (neither special to bash nor a letter), mapped back by offsets.
func classifyBytes(command string) Classification {
	ascii := []byte(command)
	for i, b := range ascii {
		if b >= 0x80 {
			ascii[i] = '%'
		}
	}
	c := Classify(string(ascii))
	if c.Unknown {
		return c
	}
	back := func(texts []string) []string {
		var out []string
		from := 0
		for _, s := range texts {
			i := strings.Index(string(ascii[from:]), s)
			out = append(out, command[from+i:from+i+len(s)])
			from += i
		}
		return out
	}
	return Classification{Segments: back(c.Segments), Inner: back(c.Inner)}
}

// TestLocaleTables checks PERM-50's byte lists against the installed glibc
// through bash itself. For every ASCII byte X, after each of localeChars
// (C) and after C and a digit, it evals `printf '<%s>' CXz` in bash under
// each locale and under C.UTF-8; wherever the two print differently, the
// locale read X into a character (or moved a boundary around it), and
// localeHazard must flag X. It also requires BIG5, GBK and GB18030 to
// differ somewhere, or the probe proves nothing.
func TestLocaleTables(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bash")
	}
	bash := bash5(t)
	locales := installedLocales(t)
	var probes []string
	for _, c := range localeChars {
		for _, ctx := range []string{c, c + "1"} {
			for x := 0; x < 0x7F; x++ {
				if x < 0x20 && x != '\t' && x != '\n' {
					continue
				}
				probes = append(probes, "printf '<%s>' "+ctx+string(rune(x))+"z")
			}
		}
	}
	// One bash per locale: the script is ASCII ($'\xNN' escapes), and
	// each probe is parsed by eval, in the locale, as -c would parse it.
	var script strings.Builder
	for _, p := range probes {
		script.WriteString("p=$'")
		for i := 0; i < len(p); i++ {
			fmt.Fprintf(&script, "\\x%02x", p[i])
		}
		script.WriteString("'; eval \"$p\" 2>/dev/null; wait; printf '\\n#END\\n'\n")
	}
	// The probes with X = '>' redirect into a file named z: they run
	// in a directory of their own, never in the package's.
	work := t.TempDir()
	outputs := func(locale string) []string {
		cmd := exec.Command(bash, "--norc", "--noprofile")
		cmd.Dir = work
		cmd.Stdin = strings.NewReader(script.String())
		cmd.Env = append(localeEnv(locale), "PATH="+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", locale, err)
		}
		parts := strings.Split(string(out), "\n#END\n")
		if len(parts) != len(probes)+1 {
			t.Fatalf("%s: %d outputs for %d probes", locale, len(parts)-1, len(probes))
		}
		return parts[:len(probes)]
	}
	base := outputs("C.UTF-8")
	for _, locale := range locales[1:] {
		got := outputs(locale)
		var moved []string
		differ := 0
		for i, p := range probes {
			if got[i] == base[i] {
				continue
			}
			x := len(p) - 2 // the byte before the final z
			if !slices.Contains(moved, p[x:x+1]) {
				moved = append(moved, p[x:x+1])
			}
			differ++
			if !localeHazard(p, x) {
				t.Errorf("%s: %q prints %q, in UTF-8 %q, and PERM-50 does not flag %q", locale, p, got[i], base[i], p[x])
			}
		}
		slices.Sort(moved)
		t.Logf("%s: %d of %d probes read differently, at bytes %q", locale, differ, len(probes), strings.Join(moved, ""))
		if differ == 0 && strings.ContainsAny(locale, "BG") && !strings.Contains(locale, "ISO") {
			t.Errorf("%s reads every probe as UTF-8 does: the probe proves nothing", locale)
		}
	}
}
