package sendsms

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
	"calq/internal/serve/webhook"
	"calq/internal/testclock"
	"calq/sms/pdu"
	"calq/sms/store"
)

// TestThroughService sends through smsapi's real Service on a journal:
// the messages are in the outbox in the coding asked, a dlr-url to a
// private address and a send over the daily quota are refused with
// Kannel's statuses, and the network's acceptance and status report
// call dlr-url with Kannel's codes replaced, for the types of the mask.
func TestThroughService(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a guard against a hang, not a timing
	defer cancel()
	c := testclock.New(t0)
	jn, us := openUsers(t, c)
	box, err := store.Open(ctx, jn)
	must(t, err)
	policy, err := webhook.NewPolicy([]string{"127.0.0.0/8"})
	must(t, err)
	svc, err := smsapi.New(ctx, smsapi.Options{Store: box, Journal: jn, Rights: us, Policy: policy, Rate: 100, Quota: 2, Now: c.Now,
		Push: webhook.Options{Base: time.Millisecond, Max: 2 * time.Millisecond}})
	must(t, err)
	_, err = us.Add(ctx, users.User{Name: "ann"})
	must(t, err)
	must(t, us.SetSMSRights(ctx, "ann", users.SMSRights{Allowed: true}))
	key, err := us.NewKey(ctx, "ann")
	must(t, err)

	dlrs := make(chan string, 10)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dlrs <- r.Method + " " + r.URL.RequestURI()
	}))
	defer target.Close()
	f := &fixture{rec: &recorder{now: c.Now}, keys: map[string]string{"ann": key}}
	m := http.NewServeMux()
	(&Handler{Sender: svc, Users: us, Now: c.Now}).Register(m, nil)
	f.srv = httptest.NewServer(m)
	defer f.srv.Close()

	dlrURL := url.QueryEscape(target.URL + "/dlr/%I?d=%d&A=%A&P=%P&F=%F&n=%n&i=%i&t=%t&k=%k")
	var b strings.Builder
	for _, x := range []exchange{
		{name: "UCS-2 with reports", method: "GET", target: q + "username=ann&password={ann}&to=%2B41791234567&text=Gr%C3%BC%C3%9Fe+Ann&coding=2&charset=UTF-8&dlr-mask=9&dlr-url=" + dlrURL},
		{name: "dlr-url to a private address", method: "GET", target: q + "username=ann&password={ann}&to=%2B41791234567&text=hi&dlr-mask=1&dlr-url=http%3A%2F%2F10.0.0.1%2Fdlr%3Fd%3D%25d"},
		{name: "deferred", method: "GET", target: q + "username=ann&password={ann}&to=%2B41791234567&text=later&deferred=60"},
		{name: "over the daily quota", method: "GET", target: q + "username=ann&password={ann}&to=%2B41791234567&text=third"},
	} {
		f.do(t, &b, x)
	}
	out := strings.ReplaceAll(b.String(), url.QueryEscape(target.URL), "TARGET")
	golden(t, "service.txt", strings.ReplaceAll(out, target.URL, "TARGET"))

	page, err := svc.List(ctx, users.User{Name: "ann"}, smsapi.Filter{})
	must(t, err)
	i := slices.IndexFunc(page.Items, func(m smsapi.Message) bool { return m.Text == "Grüße Ann" })
	if len(page.Items) != 2 || i < 0 {
		t.Fatalf("List() = %+v, want 2 messages, \"Grüße Ann\" one of them", page.Items)
	}
	first := page.Items[i]
	sm, err := box.SMS(ctx, first.ID)
	must(t, err)
	if msg, err := pdu.Decode(sm.Parts[0].Hex, pdu.MO); err != nil || msg.Encoding != "ucs2" || msg.Text != "Grüße Ann" || !msg.SRR {
		t.Errorf("message %d's PDU = %+v, %v, want UCS-2 \"Grüße Ann\" asking for a status report", first.ID, msg, err)
	}

	_, err = box.SMSPartAccepted(ctx, first.ID, 1, "gsm0", 42)
	must(t, err)
	_, err = box.AddInboxEntry(ctx, store.InboxEntry{Kind: store.KindReport, Modem: "gsm0", Sender: "+41791234567", MR: 42, ST: 0,
		Received: c.Now(), DT: c.Now()}, nil)
	must(t, err)
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- svc.Run(runCtx) }()
	defer func() {
		stop()
		if err := <-ran; err != nil {
			t.Errorf("Run() = %v", err)
		}
	}()
	svc.Wake()
	var got []string
	for len(got) < 2 {
		select {
		case d := <-dlrs:
			got = append(got, strings.ReplaceAll(d, target.URL, ""))
		case <-ctx.Done():
			t.Fatalf("dlr-url calls: %q, want two", got)
		}
	}
	slices.Sort(got)
	want := []string{
		"GET /dlr/" + itoa(first.ID) + "?d=1&A=id%3A42+stat%3ADELIVRD+err%3A000&P=%2B41791234567&F=42&n=ann&i=gsm0&t=2026-11-29+20%3A00&k=Gr%C3%BC%C3%9Fe",
		"GET /dlr/" + itoa(first.ID) + "?d=8&A=ACK%2F&P=%2B41791234567&F=42&n=ann&i=gsm0&t=2026-11-29+20%3A00&k=Gr%C3%BC%C3%9Fe",
	}
	if !slices.Equal(got, want) {
		t.Errorf("dlr-url calls:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
