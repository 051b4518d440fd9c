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
		Env         map[string]string `yaml:"env"`
		Jobs        map[string]*job   `yaml:"jobs"`
	}
	job struct {
		Name     string `yaml:"name"`
		RunsOn   string `yaml:"runs-on"`
		Needs    string `yaml:"needs"`
		If       string `yaml:"if"`
		Strategy struct {
			FailFast *bool            `yaml:"fail-fast"`
			Matrix   map[string][]int `yaml:"matrix"`
		} `yaml:"strategy"`
		Permissions map[string]string `yaml:"permissions"`
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

var pinnedAction = regexp.MustCompile(`^[\w.-]+/[\w.-]+@v\d+$`)

func checkSteps(t *testing.T, where string, steps []*step) {
	t.Helper()
	for i, s := range steps {
		if (s.Uses == "") == (s.Run == "") {
			t.Errorf("%s step %d (%s): want exactly one of uses and run", where, i, s.Name)
		}
		if s.Uses != "" && !pinnedAction.MatchString(s.Uses) {
			t.Errorf("%s step %d: uses %q, want owner/repo@vN", where, i, s.Uses)
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
	shard, certify := w.Jobs["shard"], w.Jobs["certify"]
	if shard == nil || certify == nil || len(w.Jobs) != 2 {
		t.Fatalf("jobs %v, want shard and certify", w.Jobs)
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
	if shard.Strategy.FailFast == nil || *shard.Strategy.FailFast {
		t.Error("the matrix must not fail fast: the merge needs every shard")
	}
	if shard.Env["APEXCHECK_REQUIRE_PROGRAMS"] != "1" {
		t.Error("the shards must set APEXCHECK_REQUIRE_PROGRAMS=1")
	}
	if certify.Needs != "shard" || !strings.Contains(certify.If, "always()") {
		t.Errorf("certify: needs %q if %q; want needs shard and always()", certify.Needs, certify.If)
	}
	if w.Permissions["contents"] != "read" || certify.Permissions["contents"] != "write" {
		t.Errorf("permissions: workflow %v, certify %v", w.Permissions, certify.Permissions)
	}
	checkSteps(t, "shard", shard.Steps)
	checkSteps(t, "certify", certify.Steps)
	for _, c := range []struct {
		job        *job
		step, want string
	}{
		{shard, "Install apexcheck", "go install ./cmd/apexcheck"},
		{shard, "Install apexcheck", "@latest"},
		{shard, "Install zsh and fish", "apt-get install -y -qq --no-install-recommends zsh fish"},
		{shard, "Run the shard", `--certify --shard "$SHARD/$APEXCHECK_SHARDS"`},
		{shard, "Run the shard", "--json"},
		{certify, "Install apexcheck", "go install ./cmd/apexcheck"},
		{certify, "Merge and certify", "apexcheck merge --certify --certificate"},
		{certify, "Merge and certify", "--junit"},
		{certify, "Merge and certify", "--markdown"},
		{certify, "Merge and certify", "--badge"},
		{certify, "Merge and certify", "$GITHUB_STEP_SUMMARY"},
		{certify, "Publish the badge", "git push --force origin"},
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
	if d := certify.named(t, "Download the shard reports"); d.With["pattern"] != "apexcheck-shard-*" || d.With["merge-multiple"] != "true" {
		t.Errorf("download: %v", d.With)
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
	w := loadWorkflow(t)
	for _, want := range []string{"go install ./cmd/apexcheck", "apexcheck version"} {
		if !strings.Contains(install, want) || !strings.Contains(w.Jobs["shard"].named(t, "Install apexcheck").Run, want) {
			t.Errorf("the action and the workflow do not both install with %q", want)
		}
	}
	if _, ok := a.Outputs["suite"]; !ok {
		t.Error("the action does not output the suite digest")
	}
}

// expression matches the one GitHub expression the test substitutes.
var expression = regexp.MustCompile(`\$\{\{\s*matrix\.shard\s*\}\}`)

// runner executes run: blocks as GitHub's default shell does (bash
// --noprofile --norc -eo pipefail) in one workspace, which stands for the
// workspaces of every job: what a job uploads, the next downloads.
type runner struct {
	t    *testing.T
	ws   string
	base []string
}

func (r *runner) run(j *job, s *step, matrix string) (string, error) {
	script := filepath.Join(r.t.TempDir(), "step.sh")
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		r.t.Fatal(err)
	}
	env := append([]string{}, r.base...)
	for _, m := range []map[string]string{j.Env, s.Env} {
		for k, v := range m {
			v = expression.ReplaceAllString(v, matrix)
			if strings.Contains(v, "${{") {
				r.t.Fatalf("step %q: env %s=%s: an expression the test cannot evaluate", s.Name, k, v)
			}
			env = append(env, k+"="+v)
		}
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir, cmd.Env = r.ws, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestWorkflowRuns executes the workflow's shell steps against the
// embedded reference: install the kit from a checkout, run the three
// shards (at once, as the matrix does), merge and certify, and publish the
// badge to a branch of a local "origin".
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
	tmp := t.TempDir()
	ws, bin, origin := filepath.Join(tmp, "workspace"), filepath.Join(tmp, "bin"), filepath.Join(tmp, "origin.git")
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
		if k, _, _ := strings.Cut(kv, "="); k != "PATH" && !strings.HasPrefix(k, "GITHUB_") && !strings.HasPrefix(k, "APEXCHECK_") {
			base = append(base, kv)
		}
	}
	base = append(base, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GOBIN="+bin,
		"GITHUB_STEP_SUMMARY="+summary, "GITHUB_SHA=0123456789abcdef", "RUNNER_TEMP="+tmp)
	for k, v := range w.Env {
		base = append(base, k+"="+v)
	}
	// The embedded reference: an empty --impl.
	base = append(base, "APEXCHECK_IMPL=")
	r := &runner{t: t, ws: ws, base: base}
	shard, certify := w.Jobs["shard"], w.Jobs["certify"]

	// Every run: step is executed below but the one that needs root and
	// the network; a new step must be added here.
	executed := map[string]bool{"shard/Install apexcheck": true, "shard/Run the shard": true,
		"certify/Install apexcheck": true, "certify/Merge and certify": true, "certify/Publish the badge": true,
		"shard/Install zsh and fish": false}
	for name, j := range w.Jobs {
		for _, s := range j.Steps {
			if _, ok := executed[name+"/"+s.Name]; s.Run != "" && !ok {
				t.Errorf("run: step %s/%q is not exercised by this test", name, s.Name)
			}
		}
	}

	if out, err := r.run(shard, shard.named(t, "Install apexcheck"), ""); err != nil || !strings.Contains(out, "apexcheck ") {
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
	out, err := r.run(certify, certify.named(t, "Merge and certify"), "")
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
	if s, _ := os.ReadFile(summary); !bytes.Contains(s, cert) || len(s) <= len(cert) {
		t.Errorf("the step summary lacks the Markdown summary or the certificate:\n%s", s)
	}

	badge, _ := os.ReadFile(filepath.Join(outDir, "badge.json"))
	if out, err := r.run(certify, certify.named(t, "Publish the badge"), ""); err != nil {
		t.Fatalf("publish the badge: %v\n%s", err, out)
	}
	pushed, err := exec.Command("git", "--git-dir", origin, "show", "apexcheck-badge:badge.json").Output()
	if err != nil || len(badge) == 0 || !bytes.Equal(pushed, badge) {
		t.Errorf("the badge branch holds %q (%v), want %q", pushed, err, badge)
	}
}
