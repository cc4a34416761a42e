package webhook_test

import (
	"fmt"
	"net/http"
	"net/url"

	"calq/internal/serve/webhook"
)

func ExampleParseHeaders() {
	h := http.Header{}
	h.Set("Gotenberg-Webhook-Url", "https://bucket.example.com/out.pdf?sig=x")
	h.Set("Gotenberg-Webhook-Method", "put")
	h.Set("Gotenberg-Webhook-Events-Url", "https://api.example.com/events")
	h.Set("Gotenberg-Webhook-Extra-Http-Headers", `{"x-api-key":"k"}`)
	r, err := webhook.ParseHeaders(h)
	fmt.Println(r.Method, r.URL, r.EventsURL, r.ExtraHeaders, err)

	h.Del("Gotenberg-Webhook-Events-Url")
	_, err = webhook.ParseHeaders(h)
	fmt.Println(err)
	// Output:
	// PUT https://bucket.example.com/out.pdf?sig=x https://api.example.com/events map[X-Api-Key:k] <nil>
	// Invalid 'Gotenberg-Webhook-Events-Url' header: it (or the older 'Gotenberg-Webhook-Error-Url') is required with 'Gotenberg-Webhook-Url'.
}

func ExamplePolicy_Check() {
	p, _ := webhook.NewPolicy([]string{"10.0.0.0/8", "pdf-sink.internal:8080"})
	for _, raw := range []string{"http://10.1.2.3/in", "http://192.168.1.1/in", "http://localhost:3000/in", "http://pdf-sink.internal:8080/in"} {
		u, _ := url.Parse(raw)
		fmt.Println(raw, p.Check(u))
	}
	// Output:
	// http://10.1.2.3/in <nil>
	// http://192.168.1.1/in 192.168.1.1 is a private, loopback or reserved address, which webhooks may not reach
	// http://localhost:3000/in localhost is ::1, a private, loopback or reserved address, which webhooks may not reach
	// http://pdf-sink.internal:8080/in <nil>
}
