package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"
)

// TestWebhookRouteWithoutFile: a route whose answer is a reply, not a
// file (metadata/read, bookmarks/read), cannot be delivered to a webhook:
// as Gotenberg, calq answers 204 and then posts to the error URL a JSON
// body with status 400 and Gotenberg's sentence, which its clients match.
func TestWebhookRouteWithoutFile(t *testing.T) {
	type hit struct {
		path, ctype string
		body        []byte
	}
	hits := make(chan hit, 4)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hits <- hit{r.URL.Path, r.Header.Get("Content-Type"), b}
	}))
	defer sink.Close()
	ts := webhookServer(t, "127.0.0.1/32")
	three := fileUpload(t, filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	const want = "The webhook middleware can only work with multipart/form-data routes that results in output files"
	for _, route := range []string{"metadata/read", "bookmarks/read"} {
		t.Run(route, func(t *testing.T) {
			h := http.Header{"Gotenberg-Webhook-Url": {sink.URL + "/webhook"}, "Gotenberg-Webhook-Error-Url": {sink.URL + "/webhook/error"}}
			resp := post(t, ts.URL+"/forms/pdfengines/"+route, []upload{three}, nil, h)
			if b := body(t, resp); resp.StatusCode != http.StatusNoContent {
				t.Fatalf("got %d %q, want 204", resp.StatusCode, b)
			}
			got := received(t, hits)
			var msg struct {
				Status  int    `json:"status"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal(got.body, &msg); err != nil || msg.Status != 400 || msg.Message != want {
				t.Errorf("got %q (%v), want status 400 and message %q", got.body, err, want)
			}
			if got.path != "/webhook/error" || got.ctype != "application/json" {
				t.Errorf("got a delivery to %s as %q, want /webhook/error as application/json", got.path, got.ctype)
			}
		})
	}
}

// received is the next delivery a test's webhook target records, waited
// for at most a minute.
func received[T any](t *testing.T, hits <-chan T) T {
	t.Helper()
	select {
	case got := <-hits:
		return got
	case <-time.After(time.Minute):
		t.Fatal("no delivery within a minute")
	}
	panic("unreachable")
}
