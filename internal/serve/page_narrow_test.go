package serve

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	bt "calq/internal/browsertest"
	"calq/internal/serve/users"
)

// phoneWidth is a phone's viewport in CSS pixels (an iPhone 12 to 15),
// the narrowest the pages are made for.
const phoneWidth = 390

// Names long enough to fill the pages: one with spaces, one without any
// place to break, one of many short words.
var (
	longSpaced = "Quarterly report for the board of directors, final version with all appendices and annotations 2025.txt"
	longSolid  = "ThisIsAFileNameWithoutAnySpaceOrPunctuationThatABrowserCouldBreakAtWhenTheScreenIsNarrow_v12.txt"
	longUser   = "a.very.long.user.name.of.sixty-four.characters@example-corp.org"
)

// fullPages fills a page server as a busy user's would be: alice has a
// job of many files with long names and one that failed for a long
// reason, a merged job, long contacts and a profile with every setting;
// there are users with long names. It returns alice's signed-in client
// and the paths of her jobs.
func fullPages(t *testing.T, ts *testServer) (*http.Client, []string) {
	t.Helper()
	ctx := context.Background()
	if _, err := ts.Users.Add(ctx, users.User{Name: longUser, Admin: true}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := ts.Users.NewKey(ctx, longUser); err != nil {
			t.Fatal(err)
		}
	}
	alice := browserClient(t)
	signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
	for _, v := range []url.Values{
		{"action": {"save"}, "name": {"Directeur général adjoint des finances publiques et du budget"},
			"address": {"directeur.general.adjoint.finances@ministere-des-finances.example.org"}},
		{"action": {"save"}, "name": {"boss"}, "address": {"boss@example.org"}},
		{"action": {"save"}, "name": {"legal-department-archive"}, "watermark": {"CONFIDENTIAL — FOR THE BOARD ONLY, DO NOT FORWARD"},
			"watermark_style": {"font:Helvetica, points:48, opacity:0.3"}, "title": {"Quarterly report of the board"},
			"author": {"The secretary of the board of directors"}, "pdfa": {"2"}, "encrypt": {"1"}, "permissions": {"print"},
			"mail_to": {"boss, directeur.general.adjoint.finances@ministere-des-finances.example.org"}},
	} {
		path := "/contacts"
		if v.Has("watermark") {
			path = "/profiles"
		}
		if status, page := pagePost(t, alice, ts.URL+path, v); status != http.StatusOK {
			t.Fatalf("POST %s %v: %d\n%s", path, v, status, page)
		}
	}
	broken, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "broken", "random-bytes.docx"))
	if err != nil {
		t.Fatal(err)
	}
	many := []upload{{"files", longSpaced, []byte("a long report\n")}, {"files", longSolid, []byte("no spaces\n")}}
	for i := range 10 {
		many = append(many, upload{"files", fmt.Sprintf("Appendix %02d - figures and tables of the quarter.txt", i+1), longText(5)})
	}
	many = append(many, upload{"files", "Broken spreadsheet sent by the regional office in a format nobody reads.docx", broken})
	var jobs []string
	for _, send := range []struct {
		files  []upload
		fields map[string]string
	}{
		{many, nil},
		{many[:3], map[string]string{"merge": "true", "watermarkExpression": "DRAFT"}},
	} {
		resp := postPage(t, alice, ts.URL+"/convert", send.files, send.fields)
		resp.Body.Close()
		job := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(job, "/job/") {
			t.Fatalf("upload: %d to %q", resp.StatusCode, job)
		}
		if p := finalProgress(t, alice, ts.URL, job); !p.Final {
			t.Fatalf("job %s: %+v", job, p)
		}
		jobs = append(jobs, job)
	}
	return alice, jobs
}

// fits checks that the page in ctx has no horizontal scrolling at width,
// and that no size or date on it is broken across lines.
func fits(t *testing.T, ctx context.Context, name string, width int) {
	t.Helper()
	sw, err := bt.Eval[int](ctx, "document.documentElement.scrollWidth")
	if err != nil {
		t.Fatal(err)
	}
	if sw > width {
		wide, _ := bt.Eval[[]string](ctx, wideElements)
		t.Errorf("%s at %d px: the page is %d px wide; too wide: %v", name, width, sw, wide)
	}
	broken, err := bt.Eval[[]string](ctx, brokenValues)
	if err != nil {
		t.Fatal(err)
	}
	if len(broken) > 0 {
		t.Errorf("%s at %d px: values broken across lines: %q", name, width, broken)
	}
}

// wideElements lists the innermost elements whose right edge is past
// the viewport, outside any box that scrolls.
const wideElements = `(() => {
  const w = document.documentElement.clientWidth, out = [];
  const scrolls = (e) => { for (let p = e.parentElement; p; p = p.parentElement) {
    const s = getComputedStyle(p).overflowX; if (s === "auto" || s === "scroll" || s === "hidden") return true; } return false; };
  for (const e of document.body.querySelectorAll("*")) {
    const r = e.getBoundingClientRect();
    if (r.right > w + 0.5 && !scrolls(e) && ![...e.children].some(c => c.getBoundingClientRect().right > w + 0.5))
      out.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.split(" ").join(".") : "") + " " + Math.round(r.right));
  }
  return out.slice(0, 12);
})()`

// brokenValues lists the sizes ("1.5 KiB") and dates ("2025-05-01
// 12:00:00") of the page's text that the browser drew on more than one
// line.
const brokenValues = `(() => {
  const re = /\d+(\.\d+)?[\s\u00a0](B|KiB|MiB|GiB|TiB)\b|\d{4}-\d\d-\d\d[\s\u00a0]\d\d:\d\d(:\d\d)?/g, out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walk.nextNode());) {
    for (const m of n.data.matchAll(re)) {
      const r = document.createRange();
      r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
      const lines = new Set([...r.getClientRects()].filter(c => c.width > 0).map(c => Math.round(c.top)));
      if (lines.size > 1) out.push(m[0]);
    }
  }
  return out;
})()`

// TestPagesFit: every page fits a phone's 390 px and a desktop's 1280 px
// without scrolling sideways, with data that fills them (long names,
// many files, long reasons); sizes and dates are never broken across
// lines. Each page's screenshot, whole, is kept in $CALQ_SCREENSHOTS.
func TestPagesFit(t *testing.T) {
	ts := pageServer(t, func(o *Options) { o.Mail = &recordingMailer{} })
	_, jobs := fullPages(t, ts)
	empty := newTestServer(t, func(o *Options) { o.Accounts = o.Users.(*users.Store) })
	b := bt.New(t)
	shots := screenshotDir(t)
	for _, width := range []int{bt.ViewportWidth, phoneWidth} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ctx := b.Tab(t)
			if err := bt.SetViewport(ctx, width, 844); err != nil {
				t.Fatal(err)
			}
			// see checks the page the tab shows and keeps its screenshot.
			see := func(name string) {
				t.Helper()
				fits(t, ctx, name, width)
				checkPatterns(t, ctx, name)
				if err := bt.FullScreenshot(ctx, filepath.Join(shots, fmt.Sprintf("%s-%d.png", name, width))); err != nil {
					t.Fatal(err)
				}
			}
			look := func(name, path string) {
				t.Helper()
				if _, err := bt.Navigate(ctx, ts.URL+path); err != nil {
					t.Fatal(err)
				}
				if name == "viewer" {
					if _, err := bt.WaitAttribute(ctx, "#viewer", "data-rendered"); err != nil {
						t.Fatal(err)
					}
				}
				see(name)
			}
			click := func(name, sel string) {
				t.Helper()
				if _, err := bt.ClickNavigate(ctx, sel); err != nil {
					t.Fatal(err)
				}
				see(name)
			}
			look("login", "/login")
			browserSignIn(t, ctx, ts.URL, "alice")
			look("convert", "/convert")
			look("job", jobs[0])
			look("job-merged", jobs[1])
			look("viewer", jobs[0]+"/view/0")
			look("history", "/history")
			look("contacts", "/contacts")
			look("profiles", "/profiles")
			look("profile-edit", "/profiles?edit=legal-department-archive")
			look("not-found", "/job/0123456789abcdef0123456789abcdef")
			browserSignOut(t, ctx)
			browserSignIn(t, ctx, ts.URL, "root")
			look("users", "/admin/users")
			click("user-key", `tr[data-user="`+longUser+`"] button[value="key"]`)
			if err := bt.Click(ctx, "#copy-key"); err != nil {
				t.Fatal(err)
			}
			if err := bt.WaitText(ctx, "#copy-key", "Copied"); err != nil {
				t.Errorf("the copy button: %v", err)
			}
			if _, err := chromedp.Call(ctx, browser.SetPermission, browser.SetPermissionParams{
				Permission: &browser.PermissionDescriptor{Name: "clipboard-read"}, Setting: browser.PermissionSettingGranted, Origin: ts.URL}); err != nil {
				t.Fatal(err)
			}
			key, _ := bt.Text(ctx, "#new-key")
			if got, err := bt.Eval[string](ctx, "navigator.clipboard.readText()"); err != nil || got != key || !strings.HasPrefix(got, "calq_") {
				t.Errorf("the clipboard holds %q (%v), want the key %q", got, err, key)
			}
			click("user-delete", `tr[data-user="`+longUser+`"] button[value="delete"]`)
			look("log", "/admin/log")
			look("monitor", "/admin/monitor")
			browserSignOut(t, ctx)
			look("login-again", "/login")
			if _, err := bt.Navigate(ctx, empty.URL+"/convert"); err != nil {
				t.Fatal(err)
			}
			see("setup")
		})
	}
	t.Logf("screenshots in %s", shots)
}
