// Package ci holds the tests of the ready-to-copy GitHub Actions workflow
// (apexcheck.yml) and of the composite action (action.yml at the
// repository root): both parse strictly, and the workflow's shell steps
// run, in order, the sharded certification they promise.
package ci

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"
)

// The subset of the GitHub Actions syntax the workflow and the action use.
// Decoding with KnownFields rejects any other key, so a misspelt key (which
// GitHub would reject, or worse, ignore) fails here.
type (
	workflow struct {
		Name        string            `yaml:"name"`
		On          map[string]any    `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Concurrency *concurrency      `yaml:"concurrency"`
		Env         map[string]string `yaml:"env"`
		Jobs        map[string]*job   `yaml:"jobs"`
	}
	concurrency struct {
		Group            string `yaml:"group"`
		CancelInProgress bool   `yaml:"cancel-in-progress"`
	}
	job struct {
		Name           string `yaml:"name"`
		RunsOn         string `yaml:"runs-on"`
		Needs          needs  `yaml:"needs"`
		If             string `yaml:"if"`
		TimeoutMinutes int    `yaml:"timeout-minutes"`
		Strategy       struct {
			FailFast *bool            `yaml:"fail-fast"`
			Matrix   map[string][]int `yaml:"matrix"`
		} `yaml:"strategy"`
		Permissions map[string]string `yaml:"permissions"`
		Concurrency *concurrency      `yaml:"concurrency"`
		Outputs     map[string]string `yaml:"outputs"`
		Env         map[string]string `yaml:"env"`
		Steps       []*step           `yaml:"steps"`
	}
	step struct {
		ID    string            `yaml:"id"`
		Name  string            `yaml:"name"`
		If    string            `yaml:"if"`
		Uses  string            `yaml:"uses"`
		With  map[string]string `yaml:"with"`
		Env   map[string]string `yaml:"env"`
		Shell string            `yaml:"shell"`
		Run   string            `yaml:"run"`
	}
	action struct {
		Name        string            `yaml:"name"`
		Description string            `yaml:"description"`
		Author      string            `yaml:"author"`
		Branding    map[string]string `yaml:"branding"`
		Inputs      map[string]struct {
			Description string `yaml:"description"`
			Required    bool   `yaml:"required"`
			Default     string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]struct {
			Description string `yaml:"description"`
			Value       string `yaml:"value"`
		} `yaml:"outputs"`
		Runs struct {
			Using string  `yaml:"using"`
			Steps []*step `yaml:"steps"`
		} `yaml:"runs"`
	}
)

// needs is a job's needs: GitHub takes one job name or a list of them.
type needs []string

func (n *needs) UnmarshalYAML(v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode {
		*n = needs{v.Value}
		return nil
	}
	var list []string
	if err := v.Decode(&list); err != nil {
		return err
	}
	*n = list
	return nil
}

func decodeStrict(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func loadWorkflow(t *testing.T) *workflow {
	t.Helper()
	var w workflow
	decodeStrict(t, "apexcheck.yml", &w)
	return &w
}

// named returns the steps of j with the given name.
func (j *job) named(t *testing.T, name string) *step {
	t.Helper()
	for _, s := range j.Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %q", name)
	return nil
}

// pinnedAction is a third party's action pinned to a full commit SHA: a tag
// such as v4 can be moved to other code after the workflow was reviewed.
var pinnedAction = regexp.MustCompile(`^[\w.-]+/[\w.-]+@[0-9a-f]{40}$`)

// usesLine is a `uses:` line as written, with the release its SHA is,
// which a reviewer reads (parsing drops comments, so the text is checked).
var usesLine = regexp.MustCompile(`(?m)^\s*(?:- )?uses: (\S+)(.*)$`)

// checkPinComments requires every `uses:` of file to name its release in a
// comment after the SHA (`# v4.2.2`).
func checkPinComments(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	found := usesLine.FindAllStringSubmatch(string(data), -1)
	if len(found) == 0 {
		t.Fatalf("%s: no uses: lines", file)
	}
	for _, m := range found {
		if !regexp.MustCompile(`^\s+# v\d+\.\d+\.\d+$`).MatchString(m[2]) {
			t.Errorf("%s: uses: %s%s: want the release in a comment after the SHA (# vX.Y.Z)", file, m[1], m[2])
		}
	}
}

func checkSteps(t *testing.T, where string, steps []*step) {
	t.Helper()
	for i, s := range steps {
		if (s.Uses == "") == (s.Run == "") {
			t.Errorf("%s step %d (%s): want exactly one of uses and run", where, i, s.Name)
		}
		if s.Uses != "" && !pinnedAction.MatchString(s.Uses) {
			t.Errorf("%s step %d: uses %q, want owner/repo@SHA (40 hex digits)", where, i, s.Uses)
		}
		// Values reach shell steps through env, never through ${{ }} in
		// the script: no expression injection, and the scripts run
		// unchanged in TestWorkflowRuns.
		if strings.Contains(s.Run, "${{") {
			t.Errorf("%s step %q: run: holds an expression; pass it through env", where, s.Name)
		}
	}
}

func TestWorkflowParses(t *testing.T) {
	w := loadWorkflow(t)
	checkPinComments(t, "apexcheck.yml")
	kit, shard, certify, badge := w.Jobs["kit"], w.Jobs["shard"], w.Jobs["certify"], w.Jobs["badge"]
	if kit == nil || shard == nil || certify == nil || badge == nil || len(w.Jobs) != 4 {
		t.Fatalf("jobs %v, want kit, shard, certify and badge", w.Jobs)
	}
	n, err := strconv.Atoi(w.Env["APEXCHECK_SHARDS"])
	if err != nil || len(shard.Strategy.Matrix["shard"]) != n {
		t.Errorf("APEXCHECK_SHARDS %q but matrix.shard %v", w.Env["APEXCHECK_SHARDS"], shard.Strategy.Matrix["shard"])
	}
	for i, k := range shard.Strategy.Matrix["shard"] {
		if k != i+1 {
			t.Errorf("matrix.shard %v, want 1..%d", shard.Strategy.Matrix["shard"], n)
		}
	}
	for _, k := range []string{"APEXCHECK_IMPL", "APEXCHECK_PROFILE", "APEXCHECK_LEDGER", "APEXCHECK_REF"} {
		if _, ok := w.Env[k]; !ok {
			t.Errorf("workflow env lacks %s", k)
		}
	}
	if shard.Strategy.FailFast == nil || *shard.Strategy.FailFast {
		t.Error("the matrix must not fail fast: the merge needs every shard")
	}
	if shard.Env["APEXCHECK_REQUIRE_PROGRAMS"] != "1" {
		t.Error("the shards must set APEXCHECK_REQUIRE_PROGRAMS=1")
	}
	// The kit is resolved and built once; every later job depends on it
	// and uses that build, so a kit commit landing mid-run cannot split
	// the shards across two suites.
	for _, c := range []struct {
		name  string
		job   *job
		needs []string
	}{{"kit", kit, nil}, {"shard", shard, []string{"kit"}}, {"certify", certify, []string{"kit", "shard"}}, {"badge", badge, []string{"certify"}}} {
		if strings.Join(c.job.Needs, ",") != strings.Join(c.needs, ",") {
			t.Errorf("%s: needs %v, want %v", c.name, c.job.Needs, c.needs)
		}
		if c.job.TimeoutMinutes <= 0 || c.job.TimeoutMinutes > 60 {
			t.Errorf("%s: timeout-minutes %d, want a bound of at most an hour", c.name, c.job.TimeoutMinutes)
		}
	}
	if kit.Outputs["commit"] == "" || kit.Outputs["suite"] == "" {
		t.Errorf("kit outputs %v, want commit and suite", kit.Outputs)
	}
	if !strings.Contains(kit.If, "github.event.pull_request.head.repo.full_name != github.repository") {
		t.Errorf("kit: if %q; a same-repository pull request must not run a second time", kit.If)
	}
	if !strings.Contains(certify.If, "!cancelled()") || !strings.Contains(certify.If, "needs.kit.result == 'success'") {
		t.Errorf("certify: if %q; want it to merge whatever the shards report once the kit is built", certify.If)
	}
	if !strings.Contains(badge.If, "github.event_name == 'push'") || !strings.Contains(badge.If, "default_branch") {
		t.Errorf("badge: if %q; want pushes to the default branch only", badge.If)
	}
	// Least privilege: read for the workflow, write for the badge alone.
	if w.Permissions["contents"] != "read" || len(w.Permissions) != 1 {
		t.Errorf("workflow permissions %v, want contents: read alone", w.Permissions)
	}
	for name, j := range w.Jobs {
		if want := name == "badge"; (j.Permissions["contents"] == "write") != want || (!want && j.Permissions != nil) {
			t.Errorf("%s: permissions %v", name, j.Permissions)
		}
	}
	if w.Concurrency == nil || !w.Concurrency.CancelInProgress || !strings.Contains(w.Concurrency.Group, "github.ref") {
		t.Errorf("workflow concurrency %+v, want a group per ref that cancels older runs", w.Concurrency)
	}
	if badge.Concurrency == nil || badge.Concurrency.CancelInProgress || badge.Concurrency.Group == "" {
		t.Errorf("badge concurrency %+v, want one group whose pushes queue, never cancel", badge.Concurrency)
	}
	for name, j := range w.Jobs {
		checkSteps(t, name, j.Steps)
		for _, s := range j.Steps {
			// Only the badge job keeps the token in the checkout.
			if strings.HasPrefix(s.Uses, "actions/checkout@") && (s.With["persist-credentials"] == "false") == (name == "badge") {
				t.Errorf("%s: checkout persist-credentials %q", name, s.With["persist-credentials"])
			}
		}
	}
	for _, c := range []struct {
		job        *job
		step, want string
	}{
		{kit, "Build apexcheck", "go build"},
		{kit, "Build apexcheck", "@vX.Y.Z"},
		{kit, "Build apexcheck", `"$GITHUB_OUTPUT"`},
		{shard, "Install apexcheck", "chmod +x apexcheck-bin/apexcheck"},
		{shard, "Install zsh and fish", "apt-get install -y -qq --no-install-recommends zsh fish"},
		{shard, "Run the shard", `--certify --shard "$SHARD/$APEXCHECK_SHARDS"`},
		{shard, "Run the shard", `--profile "$APEXCHECK_PROFILE"`},
		{shard, "Run the shard", `--expect "$APEXCHECK_LEDGER"`},
		{shard, "Run the shard", "--json"},
		{certify, "Install apexcheck", "chmod +x apexcheck-bin/apexcheck"},
		{certify, "Merge and certify", "apexcheck merge"},
		{certify, "Merge and certify", `--expect "$APEXCHECK_LEDGER"`},
		{certify, "Merge and certify", "--certify --certificate"},
		{certify, "Merge and certify", "--junit"},
		{certify, "Merge and certify", "--markdown"},
		{certify, "Merge and certify", "--badge"},
		{certify, "Merge and certify", "$GITHUB_STEP_SUMMARY"},
		{badge, "Publish the badge", "git push --force origin"},
	} {
		s := c.job.named(t, c.step)
		if !strings.Contains(s.Run, c.want) {
			t.Errorf("step %q lacks %q:\n%s", c.step, c.want, s.Run)
		}
	}
	for _, c := range []struct {
		job  *job
		step string
		want []string
	}{
		{shard, "Upload the shard report", []string{"apexcheck-out/"}},
		{certify, "Upload the certificate and reports", []string{"certificate.txt", "junit.xml", "summary.md", "badge.json"}},
	} {
		s := c.job.named(t, c.step)
		if s.If != "always()" || !strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
			t.Errorf("step %q: if %q uses %q", c.step, s.If, s.Uses)
		}
		for _, w := range c.want {
			if !strings.Contains(s.With["path"], w) {
				t.Errorf("step %q does not upload %s", c.step, w)
			}
		}
	}
	if u := kit.named(t, "Upload apexcheck"); u.With["name"] != "apexcheck-kit" || u.With["path"] != "apexcheck-bin/" {
		t.Errorf("kit upload: %v", u.With)
	}
	for _, j := range []*job{shard, certify} {
		if d := j.named(t, "Download apexcheck"); d.With["name"] != "apexcheck-kit" || d.With["path"] != "apexcheck-bin" {
			t.Errorf("%s: download apexcheck: %v", j.Name, d.With)
		}
	}
	if d := certify.named(t, "Download the shard reports"); d.With["pattern"] != "apexcheck-shard-*" || d.With["merge-multiple"] != "true" {
		t.Errorf("download: %v", d.With)
	}
	if d := badge.named(t, "Download the certificate and reports"); d.With["name"] != "apexcheck-certificate" || d.With["path"] != "apexcheck-out" {
		t.Errorf("badge download: %v", d.With)
	}
}

func TestActionParses(t *testing.T) {
	var a action
	decodeStrict(t, "../../action.yml", &a)
	if a.Runs.Using != "composite" || a.Name == "" || a.Description == "" {
		t.Fatalf("action: %+v", a)
	}
	checkSteps(t, "action", a.Runs.Steps)
	install := ""
	for _, s := range a.Runs.Steps {
		// A composite action's run steps must name their shell.
		if s.Run != "" && s.Shell != "bash" {
			t.Errorf("action step %q: shell %q, want bash", s.Name, s.Shell)
		}
		if s.Name == "Install apexcheck" {
			install = s.Run
		}
	}
	checkPinComments(t, "../../action.yml")
	if !strings.Contains(install, "go install ./cmd/apexcheck") || !strings.Contains(install, "apexcheck version") {
		t.Errorf("the action does not install the kit from its own checkout:\n%s", install)
	}
	if _, ok := a.Outputs["suite"]; !ok {
		t.Error("the action does not output the suite digest")
	}
}

// expression matches the GitHub expressions the test substitutes: the
// matrix entry and the kit job's outputs.
var expression = regexp.MustCompile(`\$\{\{\s*(matrix\.shard|needs\.kit\.outputs\.(\w+))\s*\}\}`)

// runner executes run: blocks as GitHub's default shell does (bash
// --noprofile --norc -eo pipefail) in one workspace, which stands for the
// workspaces of every job: what a job uploads, the next downloads.
type runner struct {
	t    *testing.T
	ws   string
	base []string
	// kit holds the kit job's outputs, as later jobs read them.
	kit map[string]string
}

func (r *runner) run(j *job, s *step, matrix string) (string, error) {
	dir := r.t.TempDir()
	script, output := filepath.Join(dir, "step.sh"), filepath.Join(dir, "output")
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		r.t.Fatal(err)
	}
	env := append([]string{}, r.base...)
	env = append(env, "GITHUB_OUTPUT="+output)
	for _, m := range []map[string]string{j.Env, s.Env} {
		for k, v := range m {
			v = expression.ReplaceAllStringFunc(v, func(e string) string {
				if m := expression.FindStringSubmatch(e); m[2] != "" {
					out, ok := r.kit[m[2]]
					if !ok {
						r.t.Fatalf("step %q: env %s: the kit job has no output %s", s.Name, k, m[2])
					}
					return out
				}
				return matrix
			})
			if strings.Contains(v, "${{") {
				r.t.Fatalf("step %q: env %s=%s: an expression the test cannot evaluate", s.Name, k, v)
			}
			env = append(env, k+"="+v)
		}
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir, cmd.Env = r.ws, env
	out, err := cmd.CombinedOutput()
	if s.ID != "" {
		data, _ := os.ReadFile(output)
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				r.kit[k] = v
			}
		}
	}
	return string(out), err
}

// TestWorkflowRuns executes the workflow's shell steps against the
// embedded reference: build the kit once from a checkout, run the three
// shards (at once, as the matrix does) with that build, merge and certify
// (without a ledger, then with one), and publish the badge to a branch of a
// local "origin".
func TestWorkflowRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole suite")
	}
	for _, prog := range []string{"bash", "git", "go", "zsh", "fish"} {
		if _, err := exec.LookPath(prog); err != nil {
			// The workflow installs zsh and fish and requires them.
			t.Skipf("%s is not installed", prog)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Run(); err != nil {
		t.Skipf("the kit is not a git checkout here (%v): the kit job resolves its commit", err)
	}
	tmp := t.TempDir()
	ws, origin := filepath.Join(tmp, "workspace"), filepath.Join(tmp, "origin.git")
	// The workspace is a checkout of "your" repository with an origin to
	// push the badge to; the kit checkout is this repository.
	for _, args := range [][]string{{"init", "-q", "--bare", origin}, {"init", "-q", ws}, {"-C", ws, "remote", "add", "origin", origin}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.Symlink(root, filepath.Join(ws, ".apexcheck-kit")); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(tmp, "step-summary.md")
	w := loadWorkflow(t)
	base := []string{}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "GITHUB_") && !strings.HasPrefix(k, "APEXCHECK_") {
			base = append(base, kv)
		}
	}
	base = append(base, "GITHUB_STEP_SUMMARY="+summary, "GITHUB_SHA=0123456789abcdef", "RUNNER_TEMP="+tmp)
	for k, v := range w.Env {
		base = append(base, k+"="+v)
	}
	// The embedded reference: an empty --impl.
	base = append(base, "APEXCHECK_IMPL=")
	r := &runner{t: t, ws: ws, base: base, kit: map[string]string{}}
	kit, shard, certify, badge := w.Jobs["kit"], w.Jobs["shard"], w.Jobs["certify"], w.Jobs["badge"]

	// Every run: step is executed below but the one that needs root and
	// the network; a new step must be added here.
	executed := map[string]bool{"kit/Build apexcheck": true, "shard/Install apexcheck": true, "shard/Run the shard": true,
		"certify/Install apexcheck": true, "certify/Merge and certify": true, "badge/Publish the badge": true,
		"shard/Install zsh and fish": false}
	for name, j := range w.Jobs {
		for _, s := range j.Steps {
			if _, ok := executed[name+"/"+s.Name]; s.Run != "" && !ok {
				t.Errorf("run: step %s/%q is not exercised by this test", name, s.Name)
			}
		}
	}

	out, err := r.run(kit, kit.named(t, "Build apexcheck"), "")
	if err != nil || !strings.Contains(out, "apexcheck ") {
		t.Fatalf("build: %v\n%s", err, out)
	}
	head, _ := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if got := r.kit["commit"]; got != strings.TrimSpace(string(head)) || !strings.HasPrefix(r.kit["suite"], "sha256:") {
		t.Fatalf("kit outputs %v, want commit %s and a suite digest", r.kit, head)
	}
	// The artifact comes back without its executable bit, as
	// upload-artifact and download-artifact leave it.
	bin := filepath.Join(ws, "apexcheck-bin", "apexcheck")
	if err := os.Chmod(bin, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := r.run(shard, shard.named(t, "Install apexcheck"), ""); err != nil || !strings.Contains(out, r.kit["commit"]) {
		t.Fatalf("install: %v\n%s", err, out)
	}
	var wg sync.WaitGroup
	for _, k := range shard.Strategy.Matrix["shard"] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := r.run(shard, shard.named(t, "Run the shard"), strconv.Itoa(k))
			if err != nil || !strings.Contains(out, fmt.Sprintf("shard %d/%d:", k, len(shard.Strategy.Matrix["shard"]))) {
				t.Errorf("shard %d: %v\n%s", k, err, out)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if out, err := r.run(certify, certify.named(t, "Install apexcheck"), ""); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	out, err = r.run(certify, certify.named(t, "Merge and certify"), "")
	if err != nil || !strings.Contains(out, "apexcheck certificate: CERTIFIED") {
		t.Fatalf("merge and certify: %v\n%s", err, out)
	}
	outDir := filepath.Join(ws, "apexcheck-out")
	cert, _ := os.ReadFile(filepath.Join(outDir, "certificate.txt"))
	if !strings.HasPrefix(string(cert), "apexcheck certificate: CERTIFIED") || !strings.Contains(string(cert), "implementation  apexcheck-reference") {
		t.Errorf("certificate:\n%s", cert)
	}
	var junit struct {
		Tests int `xml:"tests,attr"`
	}
	data, _ := os.ReadFile(filepath.Join(outDir, "junit.xml"))
	if err := xml.Unmarshal(data, &junit); err != nil || junit.Tests < 100 {
		t.Errorf("junit.xml: %d tests (%v)", junit.Tests, err)
	}
	if s, _ := os.ReadFile(summary); !bytes.Contains(s, cert) || len(s) <= len(cert) || !bytes.Contains(s, []byte(r.kit["commit"])) {
		t.Errorf("the step summary lacks the Markdown summary, the certificate or the kit commit:\n%s", s)
	}

	// The same merge with a ledger: a ledger the kit itself drafted from a
	// run with no failure, so the step's --expect path is the one tested,
	// whatever the ledger format of the day.
	ledger := filepath.Join(ws, "expected.json")
	draft := exec.Command(bin, "--run", "^call_ambiguous$", "--progress", "off", "--write-expect", ledger)
	if out, err := draft.CombinedOutput(); err != nil {
		t.Fatalf("draft a ledger: %v\n%s", err, out)
	}
	withLedger := &runner{t: t, ws: ws, base: append(append([]string{}, base...), "APEXCHECK_LEDGER=expected.json"), kit: r.kit}
	if out, err := withLedger.run(certify, certify.named(t, "Merge and certify"), ""); err != nil || !strings.Contains(out, "apexcheck certificate: CERTIFIED") {
		t.Fatalf("merge and certify with a ledger: %v\n%s", err, out)
	}

	badgeFile, _ := os.ReadFile(filepath.Join(outDir, "badge.json"))
	if out, err := r.run(badge, badge.named(t, "Publish the badge"), ""); err != nil {
		t.Fatalf("publish the badge: %v\n%s", err, out)
	}
	pushed, err := exec.Command("git", "--git-dir", origin, "show", "apexcheck-badge:badge.json").Output()
	if err != nil || len(badgeFile) == 0 || !bytes.Equal(pushed, badgeFile) {
		t.Errorf("the badge branch holds %q (%v), want %q", pushed, err, badgeFile)
	}
}
