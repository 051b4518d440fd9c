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
	"github.com/google/go-cmp/cmp"
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
// page's own file; one table per profile, core first, every column named
// by its tool; beside every failure the reason its ledger gives; every
// filter showing exactly the rows it should (counted by layout, not by
// attribute); every link landing on an element of the page; and a layout
// that works on a wide screen (1400 px: nothing wider than the window) and
// a phone (420 px: stacked cards, each cell naming its tool, nothing wider
// than the window either).
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
	// The bound is generous for a loaded 2-core machine: the page loads and
	// lays out in seconds on an idle one, but the test lays its 1.3 MB out
	// again at two widths and for every filter, which took over 2 minutes
	// at load 70.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
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
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate("file://"+page),
		chromedp.WaitReady(chromedp.ID("shown"))); err != nil {
		t.Fatalf("load %s: %v", page, err)
	}

	// One table per profile, core first, its columns the profile's tools
	// by name, in the order of the reports.
	var wantTables [][]string
	var wantIDs []string
	for _, p := range m.Profiles() {
		var tools []string
		for _, r := range m.RowsOf(p) {
			tools = append(tools, r.Run.Implementation.Name+"\n"+r.Run.Implementation.Version)
		}
		wantTables = append(wantTables, tools)
		wantIDs = append(wantIDs, "matrix-"+string(p))
	}
	if len(wantIDs) < 2 || wantIDs[0] != "matrix-core" {
		t.Fatalf("the checked-in reports give the profiles %v; want core first, then apex", wantIDs)
	}
	tables, err := chromedp.Run(ctx, chromedp.Evaluate[[][]string](`Array.from(document.querySelectorAll("table.matrix")).map((t) =>
		Array.from(t.querySelectorAll("thead th[data-report]")).map((th) => th.innerText))`))
	if err != nil {
		t.Fatal(err)
	}
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("table.matrix")).map((t) => t.id)`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("matrix tables (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantTables, tables); diff != "" {
		t.Errorf("matrix columns, named by tool and version (-want +got):\n%s", diff)
	}

	// Beside every failure, what its ledger says: the reviewed reason, or
	// that none reviewed it.
	want := map[string]string{}
	for _, r := range m.Rows {
		for _, f := range r.Failures() {
			want["fail-"+r.ID+"-"+f.Scenario.Name] = f.Explanation(r.Ledger != nil)
		}
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries(Array.from(document.querySelectorAll("div.failure"))
		.map((d) => [d.id, d.querySelector("p.reason").innerText]))`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the reasons beside the failures (-want +got):\n%s", diff)
	}
	reviewed := 0
	for _, reason := range want {
		if strings.HasPrefix(reason, "Reviewed reason") {
			reviewed++
		}
	}
	if reviewed == 0 {
		t.Errorf("no failure shows a reviewed reason: are the ledgers given to make matrix?")
	}

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
		runs := evalInt(ctx, t, visibleCount("table.matrix thead th[data-report]"))
		impls := evalInt(ctx, t, visibleCount("tr.impl"))
		shown, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("shown")))
		if err != nil {
			t.Fatal(err)
		}
		wantRows, wantOf, wantRuns := expectVisible(m, tt.area, tt.profile, tt.outcome)
		if rows != wantRows || runs != wantRuns || impls != wantRuns {
			t.Errorf("filter %s: %d clause rows, %d tool columns, %d tool rows visible; want %d, %d, %d",
				name, rows, runs, impls, wantRows, wantRuns, wantRuns)
		}
		if want := fmt.Sprintf("%d of %d clause rows shown", wantRows, wantOf); shown != want {
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
	if n := evalInt(ctx, t, `document.querySelectorAll("a[href^='#']").length`); n < len(m.Clauses) {
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

	// The layout at both widths, everything shown.
	for _, width := range []int64{1400, 420} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
			t.Fatal(err)
		}
		if wide := evalInt(ctx, t, tooWide); wide != 0 {
			sample, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](tooWideSample))
			t.Errorf("at %d px, %d elements reach past the window's width (the page scrolls sideways), e.g.:\n  %s",
				width, wide, strings.Join(sample, "\n  "))
		}
		if sw, w := evalInt(ctx, t, `document.documentElement.scrollWidth`), evalInt(ctx, t, `document.documentElement.clientWidth`); sw > w {
			t.Errorf("at %d px the page is %d px wide: it scrolls sideways", width, sw)
		}
		cells := evalInt(ctx, t, visibleCount("td.cell"))
		var wantCells int
		for _, p := range m.Profiles() {
			wantCells += len(m.ClausesOf(p)) * len(m.RowsOf(p))
		}
		if cells != wantCells {
			t.Errorf("at %d px, %d matrix cells shown; want %d", width, cells, wantCells)
		}
		if width > 800 {
			continue
		}
		// Narrow: the tables stack. Every cell names its tool itself
		// (the column headers are gone), in a legible size, and each clause's
		// text spans the card.
		if n := evalInt(ctx, t, visibleCount("table.matrix thead th")); n != 0 {
			t.Errorf("at %d px, %d column headers still shown: the matrix did not stack", width, n)
		}
		unnamed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("td.cell")).filter((td) => {
			const b = getComputedStyle(td, "::before");
			return b.content !== JSON.stringify(td.dataset.tool) || parseFloat(b.fontSize) < 12 || b.display !== "block";
		}).slice(0, 5).map((td) => td.closest("tr").dataset.clause + " " + td.dataset.tool)`))
		if err != nil {
			t.Fatal(err)
		}
		if len(unnamed) > 0 {
			t.Errorf("at %d px, cells that do not name their tool legibly, e.g. %v", width, unnamed)
		}
		narrow := evalInt(ctx, t, `Array.from(document.querySelectorAll("tr.clause-row td.text")).filter((td) =>
			td.getBoundingClientRect().width < 0.8 * document.documentElement.clientWidth).length`)
		if narrow != 0 {
			t.Errorf("at %d px, %d clause texts take less than 80%% of the width", width, narrow)
		}
		if n := evalInt(ctx, t, `Array.from(document.querySelectorAll("tr.impl > td")).filter((td) => getComputedStyle(td).display !== "block" ||
			getComputedStyle(td, "::before").content !== JSON.stringify(td.dataset.label + ": ")).length`); n != 0 {
			t.Errorf("at %d px, %d cells of the tools' totals are not stacked lines labelled by their column", width, n)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the page reported problems:\n  %s", strings.Join(problems, "\n  "))
	}
}

// tooWide counts the shown elements that reach past the right edge of the
// window, or are wider than their own box (they scroll sideways inside).
const tooWide = `Array.from(document.querySelectorAll("body *")).filter((e) => e.getClientRects().length > 0 &&
	(e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 ||
	 (e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0 && getComputedStyle(e).overflowX !== "visible"))).length`

// tooWideSample names a few of the elements tooWide counts.
const tooWideSample = `Array.from(document.querySelectorAll("body *")).filter((e) => e.getClientRects().length > 0 &&
	(e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 ||
	 (e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0 && getComputedStyle(e).overflowX !== "visible")))
	.slice(0, 5).map((e) => e.tagName + (e.id ? "#" + e.id : "") + "." + e.className + " right " + Math.round(e.getBoundingClientRect().right))`

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
// the clause rows shown, the clause rows of the profiles shown, and the
// tools' columns (one per run of a profile shown).
func expectVisible(m *matrix.Matrix, area, profile, outcome string) (rows, of, runs int) {
	for _, p := range m.Profiles() {
		if profile != "all" && string(p) != profile {
			continue
		}
		profileRuns := m.RowsOf(p)
		runs += len(profileRuns)
		for _, c := range m.ClausesOf(p) {
			of++
			if a, _, _ := strings.Cut(c.ID, "-"); area != "all" && a != area {
				continue
			}
			ok := outcome == "any"
			for _, r := range profileRuns {
				if string(r.Cells[c.ID].Outcome) == outcome {
					ok = true
				}
			}
			if ok {
				rows++
			}
		}
	}
	return rows, of, runs
}

// checkedInMatrix builds the matrix of the checked-in reports and
// ledgers, as make matrix does.
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
	var ledgers []*verdict.Ledger
	for _, f := range matrixLedgers(t) {
		if f == "--ledger" {
			continue
		}
		l, err := verdict.LoadLedger(f)
		if err == nil {
			err = l.CheckSuite(apexcheck.Suite, version.Kit, clauses)
		}
		if err != nil {
			t.Fatal(err)
		}
		ledgers = append(ledgers, l)
	}
	if err := m.SetLedgers(ledgers); err != nil {
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
