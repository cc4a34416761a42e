package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bt "calq/internal/browsertest"
	"calq/internal/serve/form"
)

// screenshotDir is where TestPagesInBrowser keeps its screenshots: the
// directory $CALQ_SCREENSHOTS names, else the test's temporary one.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("CALQ_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// browserSignIn signs in through the form, as a person would.
func browserSignIn(t *testing.T, ctx context.Context, base, name string) {
	t.Helper()
	if _, err := bt.Navigate(ctx, base+"/login"); err != nil {
		t.Fatal(err)
	}
	if err := bt.Fill(ctx, "#user", name); err != nil {
		t.Fatal(err)
	}
	if err := bt.Fill(ctx, "#password", name+"-secret-pw"); err != nil {
		t.Fatal(err)
	}
	if status, err := bt.ClickNavigate(ctx, "#login-submit"); err != nil || status != http.StatusOK {
		t.Fatalf("sign in as %s: %d %v", name, status, err)
	}
}

func browserSignOut(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := bt.ClickNavigate(ctx, "form.who button"); err != nil {
		t.Fatal(err)
	}
}

// TestPagesInBrowser drives the pages with a real browser: sign-in, an
// upload of three documents by the file input, their job's page until
// done, the viewer, the history, another user's 404 and 403, the
// administrator's log and monitoring; it takes a screenshot of each
// page, and watches for dialogs that a hostile file name could open.
func TestPagesInBrowser(t *testing.T) {
	ts := pageServer(t, func(o *Options) { o.Limits = form.Limits{MaxFile: 1 << 20} })
	b := bt.New(t)
	ctx := b.Tab(t)
	dialogs := bt.Dialogs(t, ctx)
	shots := screenshotDir(t)
	shot := func(name string) {
		t.Helper()
		if err := bt.Screenshot(ctx, filepath.Join(shots, name+".png")); err != nil {
			t.Fatal(err)
		}
	}

	// A page without a session leads to the sign-in form.
	if _, err := bt.Navigate(ctx, ts.URL+"/convert"); err != nil {
		t.Fatal(err)
	}
	if err := bt.WaitVisible(ctx, "#login-form"); err != nil {
		t.Fatal(err)
	}
	shot("login")
	browserSignIn(t, ctx, ts.URL, "alice")
	if err := bt.WaitVisible(ctx, "#convert-form"); err != nil {
		t.Fatal(err)
	}

	// Three real documents, by the file input; one named to attack.
	dir := t.TempDir()
	docs := []string{"sample_3.docx", "serious_poem.odt", "simple.odt"}
	var paths []string
	for _, d := range docs {
		b, err := os.ReadFile(filepath.Join(repoTestdata, "convert", d))
		if err != nil {
			t.Fatal(err)
		}
		name := d
		if d == "simple.odt" {
			name = `<img src=x onerror=alert(1)>simple.odt`
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	// Too large a file is named before anything is sent.
	big := filepath.Join(dir, "big.docx")
	if err := os.WriteFile(big, make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := bt.SetFiles(ctx, "#files", big); err != nil {
		t.Fatal(err)
	}
	if err := bt.WaitVisible(ctx, "#too-large"); err != nil {
		t.Fatal(err)
	}
	if msg, _ := bt.Text(ctx, "#too-large"); !strings.Contains(msg, "big.docx is 2.0\u00a0MiB, over the limit of 1.0\u00a0MiB") {
		t.Errorf("too large a file: %q", msg)
	}
	if err := bt.Click(ctx, "#convert-submit"); err != nil {
		t.Fatal(err)
	}
	if at, _ := bt.Eval[string](ctx, "location.pathname"); at != "/convert" {
		t.Errorf("too large a file was sent: the browser is at %s", at)
	}
	shot("convert-too-large")
	if err := bt.SetFiles(ctx, "#files", paths...); err != nil {
		t.Fatal(err)
	}
	if picked, _ := bt.Text(ctx, "#picked"); strings.Count(picked, "KiB") != 3 {
		t.Errorf("calq.js lists the picked files as %q, want three with their sizes", picked)
	}
	if err := bt.Fill(ctx, "#watermark", "DRAFT"); err != nil {
		t.Fatal(err)
	}
	shot("convert")
	if status, err := bt.ClickNavigate(ctx, "#convert-submit"); err != nil || status != http.StatusOK {
		t.Fatalf("submit: %d %v", status, err)
	}
	jobURL, err := bt.Eval[string](ctx, "location.pathname")
	if err != nil || !strings.HasPrefix(jobURL, "/job/") {
		t.Fatalf("after the upload the browser is at %q (%v)", jobURL, err)
	}
	shot("job-running")
	if err := bt.WaitText(ctx, "#job-state", "done"); err != nil {
		t.Fatal(err)
	}
	if err := bt.WaitVisible(ctx, "#outputs"); err != nil {
		t.Fatal(err)
	}
	rows, err := bt.Text(ctx, "#files")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sample_3.docx", "serious_poem.odt", "<img src=x onerror=alert(1)>simple.odt"} {
		if !strings.Contains(rows, want) {
			t.Errorf("the job's page does not show %q:\n%s", want, rows)
		}
	}
	shot("job")

	// The viewer: every page drawn, page 1 not blank, its text searchable.
	view, err := bt.Eval[string](ctx, `[...document.querySelectorAll("#outputs li")].find(li => li.textContent.includes("serious_poem")).querySelector("a.view").getAttribute("href")`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bt.Navigate(ctx, ts.URL+view); err != nil {
		t.Fatal(err)
	}
	if _, err := bt.WaitAttribute(ctx, "#viewer", "data-rendered"); err != nil {
		msg, _ := bt.Text(ctx, "#viewer-error")
		t.Fatalf("viewer: %v (%s)", err, msg)
	}
	png, err := bt.ElementPNG(ctx, `#viewer .page[data-page="1"] canvas`)
	if err != nil {
		t.Fatal(err)
	}
	if ink, err := bt.MeasureInk(png); err != nil || ink.Drawn < 1000 {
		t.Fatalf("page 1 of the viewer looks blank: %+v %v", ink, err)
	}
	text, err := bt.Text(ctx, `#viewer .page[data-page="1"] .textLayer`)
	if err != nil || !strings.Contains(text, "burning") {
		t.Fatalf("page 1's text layer %q does not hold 'burning' (%v)", text, err)
	}
	if found, err := bt.Eval[bool](ctx, `window.find("burning deck")`); err != nil || !found {
		t.Errorf("the browser's find does not find the text: %v %v", found, err)
	}
	shot("viewer")

	// The history has the three files.
	if _, err := bt.Navigate(ctx, ts.URL+"/history"); err != nil {
		t.Fatal(err)
	}
	hist, err := bt.Text(ctx, "#history")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if !strings.Contains(hist, d) {
			t.Errorf("the history does not show %s:\n%s", d, hist)
		}
	}
	if _, err := bt.Navigate(ctx, ts.URL+"/history?q=poem"); err != nil {
		t.Fatal(err)
	}
	if got, _ := bt.Text(ctx, "#history"); !strings.Contains(got, "serious_poem.odt") {
		t.Errorf("the history filtered by 'poem' lost the job:\n%s", got)
	}
	shot("history")

	// A file named to run a script, sent through the API, shows as text.
	key, err := ts.Users.NewKey(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	docx, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "sample_3.docx"))
	if err != nil {
		t.Fatal(err)
	}
	resp := post(t, ts.URL+"/jobs", []upload{{"files", "<script>alert(1)</script>.docx", docx}},
		nil, bearer(key))
	var sent struct{ ID string }
	if err := json.Unmarshal(body(t, resp), &sent); err != nil || sent.ID == "" {
		t.Fatalf("POST /jobs: %d %v", resp.StatusCode, err)
	}
	for _, path := range []string{"/job/" + sent.ID, "/history"} {
		if _, err := bt.Navigate(ctx, ts.URL+path); err != nil {
			t.Fatal(err)
		}
		if got, _ := bt.Eval[int](ctx, `document.querySelectorAll("main script:not([src^=\"/static/\"]), main img").length`); got != 0 {
			t.Errorf("%s: the file name made %d elements", path, got)
		}
	}
	if shown, _ := bt.Text(ctx, "#history"); !strings.Contains(shown, "script>") {
		t.Errorf("the history does not show the hostile name as text:\n%s", shown)
	}

	for _, page := range []string{"contacts", "profiles"} {
		if status, err := bt.Navigate(ctx, ts.URL+"/"+page); err != nil || status != http.StatusOK {
			t.Fatalf("/%s: %d %v", page, status, err)
		}
		shot(page)
	}

	// Another user: 404 for alice's job, 403 for the admin pages.
	browserSignOut(t, ctx)
	browserSignIn(t, ctx, ts.URL, "bob")
	for path, want := range map[string]int{jobURL: 404, view: 404, "/admin/log": 403, "/admin/monitor": 403} {
		if status, err := bt.Navigate(ctx, ts.URL+path); err != nil || status != want {
			t.Errorf("bob GET %s: %d %v, want %d", path, status, err, want)
		}
	}

	// The administrator finds the files in the log, by user, and sees
	// the monitoring's charts.
	browserSignOut(t, ctx)
	browserSignIn(t, ctx, ts.URL, "root")
	if _, err := bt.Navigate(ctx, ts.URL+"/admin/log?user=alice"); err != nil {
		t.Fatal(err)
	}
	logText, err := bt.Text(ctx, "#log")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if !strings.Contains(logText, d) || !strings.Contains(logText, "alice") {
			t.Errorf("the log filtered by alice does not show %s:\n%s", d, logText)
		}
	}
	if _, err := bt.Navigate(ctx, ts.URL+"/admin/log?user=bob"); err != nil {
		t.Fatal(err)
	}
	if got, _ := bt.Text(ctx, "#log"); strings.Contains(got, "serious_poem") {
		t.Errorf("the log filtered by bob shows alice's job:\n%s", got)
	}
	if _, err := bt.Navigate(ctx, ts.URL+"/admin/log?user=alice"); err != nil {
		t.Fatal(err)
	}
	shot("log")
	if _, err := bt.Navigate(ctx, ts.URL+"/admin/monitor"); err != nil {
		t.Fatal(err)
	}
	points, err := bt.Eval[int](ctx, `document.querySelectorAll("svg.chart .point").length`)
	if err != nil || points < 1 {
		t.Fatalf("the monitoring page's charts have %d points (%v), want at least 1", points, err)
	}
	shot("monitor")
	if _, err := bt.Navigate(ctx, ts.URL+"/admin/users"); err != nil {
		t.Fatal(err)
	}
	shot("users")

	// Without JavaScript: the upload posts, the job's page reloads
	// itself until the job is done.
	noJS := noScriptTab(t, b, ts.URL+"/convert")
	if err := bt.SetFiles(noJS, "#files", paths[1]); err != nil {
		t.Fatal(err)
	}
	if picked, _ := bt.Text(noJS, "#picked"); picked != "" {
		t.Fatalf("calq.js ran in the tab without JavaScript: it listed %q", picked)
	}
	if status, err := bt.ClickNavigate(noJS, "#convert-submit"); err != nil || status != http.StatusOK {
		t.Fatalf("submit without JavaScript: %d %v", status, err)
	}
	if err := bt.WaitText(noJS, "#job-state", "done"); err != nil {
		t.Fatal(err)
	}
	if err := bt.WaitVisible(noJS, "#outputs"); err != nil {
		t.Fatal(err)
	}

	// A file that cannot be converted fails alone, with its reason.
	garbage, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "broken", "random-bytes.docx"))
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.docx")
	if err := os.WriteFile(broken, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := bt.Navigate(ctx, ts.URL+"/convert"); err != nil {
		t.Fatal(err)
	}
	if err := bt.SetFiles(ctx, "#files", paths[1], broken); err != nil {
		t.Fatal(err)
	}
	convertAndWait(t, ctx)
	shot("job-failed")
	if rows, _ := bt.Text(ctx, "#files"); !strings.Contains(rows, "broken.docx\t") || !strings.Contains(rows, "failed") {
		t.Errorf("the job's files: %q, want broken.docx failed", rows)
	}

	// No page ran the hostile file name as HTML.
	time.Sleep(200 * time.Millisecond)
	if n := dialogs.Count(); n != 0 {
		t.Fatalf("%d dialogs opened: %v", n, dialogs.Messages())
	}
	t.Logf("screenshots in %s", shots)
}
