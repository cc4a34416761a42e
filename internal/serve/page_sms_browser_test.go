package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bt "calq/internal/browsertest"
	"calq/internal/serve/smsapi"
	"calq/sms"
	"calq/sms/pdu"
)

// TestSMSCounterMatchesCompose: the SMS page's counter, in the browser,
// gives each text the encoding and the number of parts that sms.Compose
// makes of it: at the limits of one message and of a part, with
// characters of the extension table (two septets, never cut) and beyond
// the BMP (two code units, never cut), and over the longest message.
func TestSMSCounterMatchesCompose(t *testing.T) {
	ts := smsPageServer(t, newFakeSMS("alice"))
	ctx := bt.New(t).Tab(t)
	console := bt.Console(t, ctx)
	browserSignIn(t, ctx, ts.URL, "alice")
	if _, err := bt.Navigate(ctx, ts.URL+"/messages"); err != nil {
		t.Fatal(err)
	}
	a := func(n int) string { return strings.Repeat("a", n) }
	ja := func(n int) string { return strings.Repeat("あ", n) }
	texts := map[string]string{
		"one letter": "a", "160": a(160), "161": a(161), "306": a(306), "307": a(307),
		"euro at the end of one": a(158) + "€", "euro over one": a(159) + "€", "euro across a part": a(152) + "€" + a(200),
		"brackets": strings.Repeat("[]", 80), "newlines": "a\nb\nc", "accents in GSM": "Ça coûte 5 € à Zürich? ¡Sí!",
		"accent outside GSM": a(100) + "ê", "japanese 70": ja(70), "japanese 71": ja(71), "japanese 134": ja(134), "japanese 135": ja(135),
		"emoji at the end of one": ja(68) + "👍", "emoji over one": ja(69) + "👍", "emoji across a part": ja(66) + "👍" + ja(10),
		"greek in GSM": "ΔΦΓΛΩΠΨΣΘΞ", "cyrillic": "Привет", "longest": a(153 * 255), "one over the longest": a(153*255 + 1),
	}
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			got, err := bt.Eval[[]string](ctx, fmt.Sprintf(`(() => { const e = document.getElementById("sms-text"); e.value = %s;
				e.dispatchEvent(new Event("input")); const c = document.getElementById("sms-count");
				return [c.dataset.encoding, c.dataset.parts, c.className, c.textContent]; })()`, jsString(text)))
			if err != nil {
				t.Fatal(err)
			}
			msgs, _, cerr := sms.Compose([]string{"+491511112222"}, text, sms.SendOptions{})
			parts, _, _ := pdu.EncodeSubmit("+491511112222", text, pdu.SubmitOptions{})
			switch {
			case errors.Is(cerr, pdu.ErrTooLong):
				if got[2] != "error" || !strings.Contains(got[3], "too long, a message takes at most 255 parts") {
					t.Errorf("the counter says %q (class %s); sms.Compose refuses the text: %v", got[3], got[2], cerr)
				}
			case cerr != nil:
				t.Fatal(cerr)
			default:
				want := []string{parts[0].Encoding, fmt.Sprint(len(msgs[0].Parts)), "hint"}
				if got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
					t.Errorf("the counter: %s, %s parts (%s: %q); sms.Compose: %s, %s parts", got[0], got[1], got[2], got[3], want[0], want[1])
				}
			}
		})
	}
	for _, m := range console.Messages() {
		if strings.Contains(m, "Content Security Policy") || strings.HasPrefix(m, "exception") {
			t.Errorf("console: %s", m)
		}
	}
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// TestSMSPageInBrowser sends through the form as a person would, sees
// the message's state and report arrive without reloading, and keeps
// screenshots of the SMS page, the address book with phone numbers and
// the monitoring page with modems, wide and on a phone, each fitting
// its width ($CALQ_SCREENSHOTS, or /tmp/smspages-shots when
// CALQ_SMS_SHOTS is set).
func TestSMSPageInBrowser(t *testing.T) {
	f := newFakeSMS("alice")
	f.outbox = sampleOutbox()[:2]
	f.inbox = []smsapi.Inbound{
		{ID: 2, Modem: "m1", From: "+491511112222", To: "+4915199999", Text: "了解です、三時に伺います 👍", Received: t1.Add(2 * time.Hour), Parts: 1, Total: 1},
		{ID: 1, Modem: "m2", From: "+33612345678", Text: "Le colis est arrivé, merci beaucoup pour votre aide précieuse hier après-midi.", Received: t1, Parts: 2, Total: 2},
	}
	f.modems, f.counts = sampleModems(), sampleCounts
	ts := smsPageServer(t, f)
	shots := screenshotDir(t)
	if os.Getenv("CALQ_SMS_SHOTS") != "" {
		shots = "/tmp/smspages-shots"
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b := bt.New(t)
	ctx := b.Tab(t)
	console := bt.Console(t, ctx)
	browserSignIn(t, ctx, ts.URL, "alice")
	if _, err := bt.Navigate(ctx, ts.URL+"/messages"); err != nil {
		t.Fatal(err)
	}
	if err := bt.Fill(ctx, "#sms-to", "mum, +44 20 7946 0000"); err != nil {
		t.Fatal(err)
	}
	if err := bt.Fill(ctx, "#sms-text", "Der Zug hat 20 Minuten Verspätung, ich komme um 18:40 an. Bis gleich!"); err != nil {
		t.Fatal(err)
	}
	if err := bt.WaitText(ctx, "#sms-count", "1 message"); err != nil {
		t.Error(err)
	}
	if err := bt.Click(ctx, "#sms-report"); err != nil {
		t.Fatal(err)
	}
	if status, err := bt.ClickNavigate(ctx, "#sms-send"); err != nil || status != 200 {
		t.Fatalf("send: %d %v", status, err)
	}
	calls := f.calls()
	if len(calls) != 1 || !calls[0].Req.Report || len(calls[0].Req.To) != 2 {
		t.Fatalf("Send calls %+v, want one with a report to two recipients", calls)
	}
	if err := bt.WaitText(ctx, "#notice", "Queued 2 messages"); err != nil {
		t.Error(err)
	}
	// The network accepts and reports: the page shows it by itself.
	f.update(4, func(m *smsapi.Message) {
		m.State, m.Modem = "sent", "m2"
		m.Parts[0] = smsapi.Part{Seq: 1, State: "accepted", Modem: "m2", MR: mr(7), Updated: time.Now(),
			Reports: []smsapi.Report{{Seq: 1, Outcome: "delivered", Discharged: time.Now(), Received: time.Now()}}}
	})
	if err := bt.WaitText(ctx, `#outbox tr[data-id="4"]`, "delivered"); err != nil {
		t.Errorf("the delivery did not show without a reload: %v", err)
	}
	if err := bt.WaitText(ctx, `#outbox tr[data-id="4"]`, "ref 7"); err != nil {
		t.Error(err)
	}
	// Text that is too long says so before anything is sent.
	if _, err := bt.Eval[bool](ctx, `(() => { const e = document.getElementById("sms-text"); e.value = "界".repeat(68); e.dispatchEvent(new Event("input")); return true; })()`); err != nil {
		t.Fatal(err)
	}
	f.update(3, func(m *smsapi.Message) {
		m.State, m.Parts[0].State, m.Parts[0].Modem, m.Parts[0].MR = "sent", "accepted", "m1", mr(31)
	})
	for _, width := range []int{bt.ViewportWidth, phoneWidth} {
		if err := bt.SetViewport(ctx, width, 844); err != nil {
			t.Fatal(err)
		}
		fits(t, ctx, "sms", width)
		if err := bt.FullScreenshot(ctx, filepath.Join(shots, fmt.Sprintf("sms-%d.png", width))); err != nil {
			t.Fatal(err)
		}
		if _, err := bt.Navigate(ctx, ts.URL+"/contacts"); err != nil {
			t.Fatal(err)
		}
		fits(t, ctx, "contacts", width)
		checkPatterns(t, ctx, "contacts")
		if err := bt.FullScreenshot(ctx, filepath.Join(shots, fmt.Sprintf("contacts-%d.png", width))); err != nil {
			t.Fatal(err)
		}
		if _, err := bt.Navigate(ctx, ts.URL+"/messages"); err != nil {
			t.Fatal(err)
		}
	}
	browserSignOut(t, ctx)
	browserSignIn(t, ctx, ts.URL, "root")
	for _, width := range []int{bt.ViewportWidth, phoneWidth} {
		if err := bt.SetViewport(ctx, width, 844); err != nil {
			t.Fatal(err)
		}
		if _, err := bt.Navigate(ctx, ts.URL+"/admin/monitor"); err != nil {
			t.Fatal(err)
		}
		fits(t, ctx, "monitor", width)
		if err := bt.FullScreenshot(ctx, filepath.Join(shots, fmt.Sprintf("monitor-%d.png", width))); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range console.Messages() {
		if strings.Contains(m, "Content Security Policy") || strings.HasPrefix(m, "exception") {
			t.Errorf("console: %s", m)
		}
	}
	t.Logf("screenshots in %s", shots)
}
