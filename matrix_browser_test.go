package apexcheck_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance/matrix"
	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/internal/version"
	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds a Chromium to drive: $APEXCHECK_CHROMIUM, else the usual
// names on PATH. Without one the test skips, unless
// APEXCHECK_REQUIRE_PROGRAMS is set (as .ci/run sets it), where a missing
// browser is an error.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("APEXCHECK_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("APEXCHECK_REQUIRE_PROGRAMS") != "" {
		t.Fatal("no chromium on PATH (install chromium, or set APEXCHECK_CHROMIUM), and APEXCHECK_REQUIRE_PROGRAMS is set")
	}
	t.Skip("skipped: no chromium on PATH to load docs/matrix.html in (install chromium, or set APEXCHECK_CHROMIUM)")
	return ""
}

// TestMatrixPageInBrowser loads docs/matrix.html in headless Chromium and
// checks what a reader sees: no console error and no request leaving the
// page's own file, every filter showing exactly the rows it should (counted
// by layout, not by attribute), and every link landing on an element of
// the page.
func TestMatrixPageInBrowser(t *testing.T) {
	browser := chromium(t)
	m := checkedInMatrix(t)
	page, err := filepath.Abs("docs/matrix.html")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	// The bound is generous for a loaded 2-core machine; the page loads in
	// well under a second.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()

	// The listener sees every event of the tab from its start: console
	// calls, uncaught exceptions, browser log entries (a resource that
	// failed to load) and every request the page makes.
	var mu sync.Mutex
	var problems []string
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, fmt.Sprintf("console %s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text+" "+describeException(ev.ExceptionDetails))
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				problems = append(problems, fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, "file://"+page) && !strings.HasPrefix(u, "data:") {
				problems = append(problems, "request leaving the page: "+u)
			}
		}
	}
	ctx, cancelTab := chromedp.NewContext(ctx, chromedp.WithListener(listen))
	defer cancelTab()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", browser, err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.ID("shown"))); err != nil {
		t.Fatalf("load %s: %v", page, err)
	}

	total := len(m.Clauses)
	for _, tt := range []struct{ area, profile, outcome string }{
		{"all", "all", "any"},
		{"EXEC", "all", "any"},
		{"all", "core", "any"},
		{"all", "apex", "any"},
		{"all", "all", "failed"},
		{"all", "core", "failed"},
		{"PROTO", "apex", "skipped"},
		{"OUT", "core", "passed"},
		{"all", "all", "absent"},
		{"CALL", "core", "any"},
	} {
		name := tt.area + "/" + tt.profile + "/" + tt.outcome
		if err := chromedp.Do(ctx, selectOption("filter-area", tt.area), selectOption("filter-profile", tt.profile),
			selectOption("filter-outcome", tt.outcome)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rows := evalInt(ctx, t, visibleCount("tr.clause-row"))
		runs := evalInt(ctx, t, visibleCount("#matrix thead th[data-report]"))
		impls := evalInt(ctx, t, visibleCount("tr.impl"))
		shown, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("shown")))
		if err != nil {
			t.Fatal(err)
		}
		wantRows, wantRuns := expectVisible(m, tt.area, tt.profile, tt.outcome)
		if rows != wantRows || runs != wantRuns || impls != wantRuns {
			t.Errorf("filter %s: %d clause rows, %d run columns, %d implementation rows visible; want %d, %d, %d",
				name, rows, runs, impls, wantRows, wantRuns, wantRuns)
		}
		if want := fmt.Sprintf("%d of %d clauses shown", wantRows, total); shown != want {
			t.Errorf("filter %s: the page says %q, want %q", name, shown, want)
		}
	}
	// Everything shown again, every link must land on an element of this
	// page: no external link, no dangling anchor.
	if err := chromedp.Do(ctx, selectOption("filter-area", "all"), selectOption("filter-profile", "all"),
		selectOption("filter-outcome", "any")); err != nil {
		t.Fatal(err)
	}
	broken, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](brokenLinks))
	if err != nil {
		t.Fatal(err)
	}
	if len(broken) > 0 {
		t.Errorf("%d links do not resolve within the page:\n  %s", len(broken), strings.Join(broken, "\n  "))
	}
	if n := evalInt(ctx, t, `document.querySelectorAll("a[href^='#']").length`); n < total {
		t.Errorf("only %d in-page links; every clause row alone has one", n)
	}
	// A click on a failing cell's link goes to the failure it names.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("td.cell a.fail-link"))); err != nil {
		t.Fatal(err)
	}
	hash, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash`))
	if err != nil {
		t.Fatal(err)
	}
	target, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(":target") ? document.querySelector(":target").id : ""`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "#fail-") || target != strings.TrimPrefix(hash, "#") {
		t.Errorf("clicking a failing cell's link: location %q, target element %q", hash, target)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the page reported problems:\n  %s", strings.Join(problems, "\n  "))
	}
}

// evalInt evaluates a JavaScript expression whose value is a number.
func evalInt(ctx context.Context, t *testing.T, js string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return n
}

// selectOption chooses a value in a <select> the way a reader does: the
// value changes and a change event fires, which the page listens to.
func selectOption(id, value string) chromedp.Action[chromedp.Void] {
	js := fmt.Sprintf(`(() => { const s = document.getElementById(%q);
		if (!Array.from(s.options).some((o) => o.value === %q)) return false;
		s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, id, value, value)
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		ok, err := chromedp.Evaluate[bool](js)(ctx, t)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("select #%s has no option %q", id, value)
		}
		return nil
	})
}

// visibleCount counts the elements a selector matches that the layout
// actually shows.
func visibleCount(selector string) string {
	return fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).filter((e) => e.getClientRects().length > 0).length`, selector)
}

// brokenLinks lists every link whose target is not an element of the page.
const brokenLinks = `Array.from(document.querySelectorAll("a[href]")).map((a) => a.getAttribute("href"))
	.filter((h) => !h.startsWith("#") || !document.getElementById(decodeURIComponent(h.slice(1))))`

// expectVisible is what the filters must show, computed from the matrix:
// the clause rows and the run columns.
func expectVisible(m *matrix.Matrix, area, profile, outcome string) (rows, runs int) {
	showRun := func(r matrix.Row) bool {
		return profile == "all" || string(r.Run.Profile.OrDefault()) == profile
	}
	for _, r := range m.Rows {
		if showRun(r) {
			runs++
		}
	}
	for _, c := range m.Clauses {
		a, _, _ := strings.Cut(c.ID, "-")
		if (area != "all" && a != area) || (profile == "core" && !c.Core) {
			continue
		}
		ok := outcome == "any"
		for _, r := range m.Rows {
			if showRun(r) && string(r.Cells[c.ID].Outcome) == outcome {
				ok = true
			}
		}
		if ok {
			rows++
		}
	}
	return rows, runs
}

// checkedInMatrix builds the matrix of the checked-in reports, as make
// matrix does.
func checkedInMatrix(t *testing.T) *matrix.Matrix {
	t.Helper()
	var runs []*verdict.ReadRun
	for _, f := range matrixReports(t) {
		run, err := verdict.ReadReportFile(f)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	clauses, err := suite.LoadClauses(apexcheck.Spec)
	if err != nil {
		t.Fatal(err)
	}
	scenarios, err := suite.LoadScenarios(apexcheck.Scripts, ".")
	if err != nil {
		t.Fatal(err)
	}
	digest, err := suite.Digest(apexcheck.Suite, ".")
	if err != nil {
		t.Fatal(err)
	}
	m, err := matrix.Compare(runs, clauses, scenarios, digest, version.Kit)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func describeException(d *runtime.ExceptionDetails) string {
	if d.Exception != nil {
		return d.Exception.Description
	}
	return ""
}
