package form

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func TestHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, output, trace string
		wantOutput          string
		wantTrace           string // "uuid": a fresh random UUID
		wantErr             string
	}{
		{name: "nothing", wantTrace: "uuid"},
		{name: "plain", output: "report", trace: "abc-123", wantOutput: "report", wantTrace: "abc-123"},
		{name: "posix path", output: "../../etc/passwd", wantOutput: "passwd", wantTrace: "uuid"},
		{name: "windows path", output: `C:\Windows\evil`, wantOutput: "evil", wantTrace: "uuid"},
		{name: "quotes", output: `a"b".pdf`, wantOutput: "ab.pdf", wantTrace: "uuid"},
		{name: "trailing slash", output: "dir/", wantOutput: "", wantTrace: "uuid"},
		{name: "dot dot", output: "..", wantOutput: "", wantTrace: "uuid"},
		{name: "long", output: strings.Repeat("x", 300), wantOutput: strings.Repeat("x", 255), wantTrace: "uuid"},
		{name: "trace too long", trace: strings.Repeat("t", 129),
			wantErr: "Invalid 'Gotenberg-Trace' header value: want at most 128 printable ASCII characters"},
		{name: "trace not ASCII", trace: "é",
			wantErr: "Invalid 'Gotenberg-Trace' header value: want at most 128 printable ASCII characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.output != "" {
				h.Set("Gotenberg-Output-Filename", tc.output)
			}
			if tc.trace != "" {
				h.Set("Gotenberg-Trace", tc.trace)
			}
			m, err := Headers(h)
			if msg := errMsg(err); msg != tc.wantErr {
				t.Fatalf("error %q, want %q", msg, tc.wantErr)
			}
			if err != nil {
				if err.(*Error).Status != 400 {
					t.Errorf("status %d, want 400", err.(*Error).Status)
				}
				return
			}
			if m.OutputFilename != tc.wantOutput {
				t.Errorf("OutputFilename = %q, want %q", m.OutputFilename, tc.wantOutput)
			}
			uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
			if tc.wantTrace == "uuid" && !uuid.MatchString(m.Trace) || tc.wantTrace != "uuid" && m.Trace != tc.wantTrace {
				t.Errorf("Trace = %q, want %q", m.Trace, tc.wantTrace)
			}
		})
	}
	a, _ := Headers(http.Header{})
	b, _ := Headers(http.Header{})
	if a.Trace == b.Trace {
		t.Errorf("two generated traces are both %q", a.Trace)
	}
}
