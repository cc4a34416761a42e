package download

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"calq/internal/serve/webhook"
)

// client is an HTTP client whose every connection and redirect goes
// through p (not nil). It takes no proxy from the environment: a proxy would make
// the connection the policy checks one to the proxy.
func client(p *webhook.Policy) *http.Client {
	tr := &http.Transport{
		DialContext:            p.DialContext,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  time.Minute,
		MaxResponseHeaderBytes: 64 << 10,
		DisableCompression:     true, // a file's bytes are counted as sent
	}
	return &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return errors.New("redirected to a URL that is not http or https")
		}
		return p.Check(req.URL)
	}}
}
