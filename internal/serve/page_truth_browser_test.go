package serve

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	bt "calq/internal/browsertest"
	"calq/internal/serve/form"
	"calq/internal/serve/jobs"
	"calq/sched"
	"calq/sched/journal"
)

// shots saves full-page screenshots of the tab at 1280 and 390 pixels
// wide (a desktop and a phone) as NAME-1280.png and NAME-390.png.
func shots(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	for _, width := range []int64{1280, 390} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 844)); err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, width)), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(bt.ViewportWidth, bt.ViewportHeight)); err != nil {
		t.Fatal(err)
	}
}

// visibleText is what a person sees of sel: its innerText, "" when it
// is not rendered (hidden, display: none).
func visibleText(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	text, err := bt.Eval[string](ctx, fmt.Sprintf(
		`(e => e && e.checkVisibility() ? e.innerText : "")(document.querySelector(%q))`, sel))
	if err != nil {
		t.Fatal(err)
	}
	// A size's number and unit are joined by a no-break space, which
	// reads as a space.
	return strings.ReplaceAll(text, "\u00a0", " ")
}

// mustSee fails unless every want is in the visible text of sel, and
// the text holds no Go syntax.
func mustSee(t *testing.T, ctx context.Context, sel string, wants ...string) string {
	t.Helper()
	text := visibleText(t, ctx, sel)
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s does not show %q:\n%s", sel, want, text)
		}
	}
	if m := goSyntax.FindString(text); m != "" {
		t.Errorf("%s shows %q:\n%s", sel, m, text)
	}
	return text
}

// recordConversions writes conversions of the last hour into the
// server's history, as calq serve's conversions are recorded: done,
// failed and timed out, on two backends, enough for λ and μ.
func recordConversions(t *testing.T, ts *testServer) {
	t.Helper()
	j, ok := ts.opts.History.(*journal.Journal)
	if !ok {
		t.Fatalf("the history is a %T, not the journal", ts.opts.History)
	}
	ctx := context.Background()
	now := time.Now()
	for n := range 12 {
		kind, backend := "convert-office", "lo-1"
		if n%4 == 3 {
			kind, backend = "convert-image", "pdfcpu"
		}
		state, reason := sched.StateDone, ""
		switch n {
		case 5: // the classes convert records (withClass), and the engine's timeout
			state, reason = sched.StateFailed, "damaged file"
		case 9:
			state, reason = sched.StateTimedOut, "timeout"
		}
		enq := now.Add(-time.Duration(50-4*n) * time.Minute)
		sj := &sched.Job{Key: fmt.Sprint("truth-", n), Kind: kind, Class: sched.P2, Enqueued: enq}
		if _, err := j.Enqueue(ctx, []*sched.Job{sj}); err != nil {
			t.Fatal(err)
		}
		at := enq.Add(time.Duration(n%3) * time.Second)
		if won, err := j.Claim(ctx, sj, backend, at); err != nil || !won {
			t.Fatalf("claim %d: %v %v", n, won, err)
		}
		a := sched.Attempt{Job: sj, Backend: backend, Attempt: sj.Attempts, State: state, Started: at,
			Finished: at.Add(time.Duration(500+100*n) * time.Millisecond), Reason: reason, Err: reason}
		if err := j.Finish(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
}

// queueByClass fills the fair gate: every instance held, then files of
// two users waiting at each class (P0 1, P1 2, P2 3, P3 4). release
// ends them.
func queueByClass(t *testing.T, ts *testServer) (release func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var held []func()
	for range ts.files.Stats().Servers {
		s, err := ts.files.Acquire(ctx, "holder", sched.P2)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, s.Release)
	}
	want := 0
	for c, n := range []int{1, 2, 3, 4} {
		for k := range n {
			want++
			go func() {
				// A slot won as the test ends goes back at once.
				if s, err := ts.files.Acquire(ctx, []string{"ann", "bob"}[k%2], sched.ClassOf(c)); err == nil {
					s.Release()
				}
			}()
		}
	}
	for ts.files.Stats().Waiting < want { // the gate counts each file that waits
		select {
		case <-time.After(10 * time.Millisecond):
		case <-t.Context().Done():
			t.Fatal("the files never waited")
		}
	}
	return func() {
		cancel()
		for _, release := range held {
			release()
		}
	}
}

// convertAndWait sends the convert page's form and waits for the job's
// page to list its result.
func convertAndWait(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := bt.ClickNavigate(ctx, "#convert-submit"); err != nil {
		t.Fatal(err)
	}
	if err := bt.WaitVisible(ctx, "#outputs"); err != nil {
		t.Fatal(err)
	}
}

// noScriptTab is a tab of b with JavaScript off, at url.
func noScriptTab(t *testing.T, b *bt.Browser, url string) context.Context {
	t.Helper()
	tab := b.Tab(t)
	if _, err := chromedp.Call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := bt.Navigate(tab, url); err != nil {
		t.Fatal(err)
	}
	return tab
}

// pdfaWithWatermark fills the convert page's form with a file, a
// watermark and PDF/A: what the server refuses.
func pdfaWithWatermark(t *testing.T, ctx context.Context, file string) {
	t.Helper()
	if err := bt.SetFiles(ctx, "#files", file); err != nil {
		t.Fatal(err)
	}
	if err := bt.Fill(ctx, "#watermark", "DRAFT"); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.SetValue(chromedp.CSS("#pdfa"), "PDF/A-2b")); err != nil {
		t.Fatal(err)
	}
}

// TestPagesShowTruth renders the pages this issue is about in a real
// browser, with data in every column and state, and reads what a person
// sees: the monitoring page's numbers and classes, the history's and
// the log's partly failed job and filters, a job's page, the viewer of
// an encrypted PDF, and the convert page's bounds, warnings and refused
// form. It saves each at 1280 and 390 pixels wide.
func TestPagesShowTruth(t *testing.T) {
	ts := pageServer(t, func(o *Options) {
		o.Limits = form.Limits{MaxFile: 1 << 20, MaxFiles: 1000}
		o.MaxQueuedUser = 20
	})
	b := bt.New(t)
	ctx := b.Tab(t)
	dialogs := bt.Dialogs(t, ctx)
	dir := screenshotDir(t)
	go1 := func(path string) {
		t.Helper()
		if status, err := bt.Navigate(ctx, ts.URL+path); err != nil || status != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, status, err)
		}
	}

	t.Run("monitoring", func(t *testing.T) {
		recordConversions(t, ts)
		// A real file that fails, through the convert page: its class in
		// words reaches the failures by reason.
		c := browserClient(t)
		signIn(t, c, ts.URL, "bob", "bob-secret-pw")
		junk, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "broken", "random-bytes.docx"))
		if err != nil {
			t.Fatal(err)
		}
		resp := postPage(t, c, ts.URL+"/convert", []upload{{"files", "junk.docx", junk}, {"files", "note.txt", []byte("a note\n")}}, nil)
		resp.Body.Close()
		if p := finalProgress(t, c, ts.URL, resp.Header.Get("Location")); p.State != jobs.Partial {
			t.Fatalf("the job with junk.docx: %+v, want partial", p)
		}
		release := queueByClass(t, ts)
		defer release()
		browserSignIn(t, ctx, ts.URL, "root")
		defer browserSignOut(t, ctx)
		go1("/admin/monitor")
		mustSee(t, ctx, "#queue-class", "P0 realtime\t1", "P1 interactive\t2", "P2 normal\t3", "P3 background\t4")
		mustSee(t, ctx, "#queue-user", "ann", "bob")
		mustSee(t, ctx, "#hour-total", "11 done, 3 failed")
		mustSee(t, ctx, "#failures", "damaged file\t1", "timeout\t1", "not what its name says\t1")
		analysis := mustSee(t, ctx, "#analysis", "convert-office\tlo-1\t", "convert-image\tpdfcpu\t")
		if strings.Count(analysis, "0.0") < 2 {
			t.Errorf("the queueing model shows no λ or μ:\n%s", analysis)
		}
		mustSee(t, ctx, "main")
		shots(t, ctx, dir, "monitor")
	})

	t.Run("history and log", func(t *testing.T) {
		four := map[int]string{}
		for _, i := range []int{1, 4, 7, 10} {
			four[i] = "the file is named .docx, but it is not a Word document"
		}
		addJob(t, ts, "partial00000001", "alice", jobs.Done, 13, four, "")
		addJob(t, ts, "done00000000002", "alice", jobs.Done, 2, nil, "")
		addJob(t, ts, "failed000000003", "alice", jobs.Failed, 1, map[int]string{0: "the password does not open the document"},
			"01.docx: the password does not open the document")
		addJob(t, ts, "cancel000000004", "alice", jobs.Cancelled, 1, nil, "the job was cancelled")
		browserSignIn(t, ctx, ts.URL, "alice")
		defer browserSignOut(t, ctx)
		go1("/history")
		rows := mustSee(t, ctx, "#history", "done, some files failed 4 failed", "02.docx (the file is named .docx, but it is not a Word document)",
			"01.docx (the password does not open the document)", "cancelled")
		if n := strings.Count(rows, "the password does not open the document"); n != 1 {
			t.Errorf("the history says a reason %d times:\n%s", n, rows)
		}
		if got, _ := bt.Eval[string](ctx, `document.querySelector('tr[data-state="partial"] .state').className`); got != "state state-partial" {
			t.Errorf("the partly failed job's state is styled %q, want state-partial (not done's green)", got)
		}
		if opts, _ := bt.Text(ctx, `select[name="state"]`); !strings.Contains(opts, "done, some files failed") {
			t.Errorf("the state filter offers %q", opts)
		}
		shots(t, ctx, dir, "history")
		go1("/history?state=failed")
		mustSee(t, ctx, "main", "2 jobs", "done, some files failed", "01.docx")
		go1("/job/partial00000001")
		mustSee(t, ctx, ".meta", "done, some files failed", "13 of 13 files finished", "4 files failed")
		mustSee(t, ctx, "#files", "02.docx\t"+humanBytes(1000)+"\tfailed the file is named .docx, but it is not a Word document")
		shots(t, ctx, dir, "job-partial")
		browserSignOut(t, ctx)
		browserSignIn(t, ctx, ts.URL, "root")
		go1("/admin/log?state=partial")
		mustSee(t, ctx, "#log", "alice", "done, some files failed")
		shots(t, ctx, dir, "log")
	})

	t.Run("viewer of an encrypted PDF", func(t *testing.T) {
		browserSignIn(t, ctx, ts.URL, "alice")
		defer browserSignOut(t, ctx)
		letter := filepath.Join(t.TempDir(), "letter.txt")
		if err := os.WriteFile(letter, []byte("A letter for the archive.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		go1("/convert")
		if err := bt.SetFiles(ctx, "#files", letter); err != nil {
			t.Fatal(err)
		}
		if err := bt.Fill(ctx, "#user-password", "open-sesame-1"); err != nil {
			t.Fatal(err)
		}
		convertAndWait(t, ctx)
		if _, err := bt.ClickNavigate(ctx, "#outputs a.view"); err != nil {
			t.Fatal(err)
		}
		if kind, err := bt.WaitAttribute(ctx, "#viewer", "data-error"); err != nil || kind != "encrypted" {
			t.Fatalf("the viewer's data-error = %q, %v; want encrypted", kind, err)
		}
		mustSee(t, ctx, "#viewer-error", "This PDF is encrypted: it needs a password to be opened")
		shots(t, ctx, dir, "viewer-encrypted")
	})

	t.Run("convert page", func(t *testing.T) {
		browserSignIn(t, ctx, ts.URL, "alice")
		defer browserSignOut(t, ctx)
		go1("/convert")
		mustSee(t, ctx, "#bounds", "up to 20 files of "+humanBytes(1<<20)+" each")
		letter := filepath.Join(t.TempDir(), "letter.txt")
		if err := os.WriteFile(letter, []byte("A letter.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		pdfaWithWatermark(t, ctx, letter)
		if err := bt.Click(ctx, "#convert-submit"); err != nil {
			t.Fatal(err)
		}
		mustSee(t, ctx, "#too-large", "PDF/A cannot go with a watermark: any change to a PDF/A file after it is made breaks its conformance.")
		if at, _ := bt.Eval[string](ctx, "location.pathname"); at != "/convert" {
			t.Errorf("PDF/A with a watermark was sent: the browser is at %s", at)
		}
		shots(t, ctx, dir, "convert-warned")

		// Without JavaScript the server refuses it, in the page's words,
		// and keeps the choices.
		noJS := noScriptTab(t, b, ts.URL+"/convert")
		pdfaWithWatermark(t, noJS, letter)
		if err := bt.Fill(noJS, "#owner-password", "owner-pw-99"); err != nil {
			t.Fatal(err)
		}
		if status, err := bt.ClickNavigate(noJS, "#convert-submit"); err != nil || status != http.StatusBadRequest {
			t.Fatalf("the refused form: %d %v, want 400", status, err)
		}
		mustSee(t, noJS, "#error", "PDF/A cannot go with a watermark or passwords", "Choose the files again")
		mustSee(t, noJS, "#passwords-again", "Type the passwords again")
		kept, err := bt.Eval[[]string](noJS, `["#watermark", "#pdfa", "#owner-password"].map(s => document.querySelector(s).value)`)
		if err != nil || fmt.Sprint(kept) != "[DRAFT PDF/A-2b ]" {
			t.Errorf("the refused form holds %q (%v), want the watermark and PDF/A kept, no password", kept, err)
		}
		shots(t, noJS, dir, "convert-refused")
	})

	if n := dialogs.Count(); n != 0 {
		t.Errorf("%d dialogs opened: %v", n, dialogs.Messages())
	}
	t.Logf("screenshots in %s", dir)
}
