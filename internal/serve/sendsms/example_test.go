package sendsms_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"calq/internal/serve/sendsms"
	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
)

// keys authenticates one key, of user ann.
type keys struct{}

func (keys) Authenticate(ctx context.Context, key string) (users.User, error) {
	if key != "calq_secret" {
		return users.User{}, users.ErrUnknownKey
	}
	return users.User{Name: "ann"}, nil
}

// printer queues nothing: it prints what it is asked to send.
type printer struct{}

func (printer) Send(ctx context.Context, u users.User, r smsapi.Request) ([]smsapi.Accepted, error) {
	fmt.Printf("%s sends %q to %v, %s, reports to %s (mask %d)\n", u.Name, r.Text, r.To, r.Priority, r.Push.URL, r.Push.Mask)
	return []smsapi.Accepted{{ID: 1, To: r.To[0], Parts: 1, State: "queued"}}, nil
}

func ExampleHandler() {
	m := http.NewServeMux()
	(&sendsms.Handler{Sender: printer{}, Users: keys{}}).Register(m, nil)
	srv := httptest.NewServer(m)
	defer srv.Close()
	for _, q := range []string{
		"username=ann&password=calq_secret&to=%2B41791234567&text=Hello&priority=1&dlr-mask=3&dlr-url=https%3A%2F%2Fapp.example%2Fdlr%3Fs%3D%25d",
		"username=ann&password=wrong&to=%2B41791234567&text=Hello",
		"username=ann&password=calq_secret&to=%2B41791234567&text=Hello&dlr-mask=3&dlr-url=https%3A%2F%2Fapp.example%2F%3Fs%3D%25z",
	} {
		resp, err := http.Get(srv.URL + "/cgi-bin/sendsms?" + q)
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, string(body))
	}
	// Output:
	// ann sends "Hello" to [+41791234567], P1, reports to https://app.example/dlr?s=%d (mask 3)
	// 202 0: Accepted for delivery
	// 403 Authorization failed for sendsms
	// 400 DLR-URL field misformed, rejected: dlr-url "https://app.example/?s=%z": unknown escape code "%z" at byte 23: Kannel's are %k %s %S %r %a %b %t %T %p %P %q %Q %i %I %d %A %F %n %c %m %M %C %u %B %o %O %f %D %x; write %% for a literal %
}
