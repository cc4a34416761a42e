package jobs

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// exportJobs are a finished job whose cells try a spreadsheet formula,
// quotes and a line break, and a queued job recorded before the files'
// states were kept.
func exportJobs() []Job {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	return []Job{{
		ID: "j1", Owner: "@ann", Route: "libreoffice/convert", State: Failed,
		Created: t0, Started: t0.Add(2 * time.Second), Finished: t0.Add(3*time.Second + 250*time.Millisecond),
		Files: []FileState{{Name: "=HYPERLINK(\"x\")", State: FileFailed, Reason: "bad"},
			{Name: "b <&>.docx", State: FileDone}, {Name: "+1.odt", State: FileFailed}},
		Error: "-2 files failed: \"quoted\"\nsecond line", Expired: true,
	}, {
		ID: "j2", Owner: "", Route: "pdfengines/merge", State: Queued, Created: t0,
		Request: Request{Files: []File{{Name: "\tTab.pdf"}, {Name: "\rCR.pdf"}}},
	}}
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, exportJobs()); err != nil {
		t.Fatal(err)
	}
	want := "id,owner,route,state,created,started,finished,seconds,files,failed_files,error,expired\n" +
		"j1,'@ann,libreoffice/convert,failed,2026-03-01T09:00:00Z,2026-03-01T09:00:02Z,2026-03-01T09:00:03.25Z,1.250," +
		`"'=HYPERLINK(""x""); b <&>.docx; +1.odt",2,"'-2 files failed: ""quoted""` + "\nsecond line\",true\n" +
		"j2,,pdfengines/merge,queued,2026-03-01T09:00:00Z,,,,\"'\tTab.pdf; \rCR.pdf\",0,,false\n"
	if b.String() != want {
		t.Errorf("WriteCSV =\n%q\nwant\n%q", b.String(), want)
	}
	// A CSV reader gets the cells back, defused.
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[1][10] != "'-2 files failed: \"quoted\"\nsecond line" || recs[1][1] != "'@ann" {
		t.Errorf("read back: %q", recs)
	}
}

func TestDefuse(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""}, {"plain", "plain"}, {"a=b", "a=b"}, {"=1+1", "'=1+1"}, {"+1", "'+1"}, {"-1", "'-1"},
		{"@SUM(A1)", "'@SUM(A1)"}, {"\tx", "'\tx"}, {"\rx", "'\rx"}, {"'x", "'x"}, {"é=", "é="},
	}
	for _, tt := range tests {
		if got := defuse(tt.in); got != tt.want {
			t.Errorf("defuse(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWriteJSONL(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSONL(&b, exportJobs()); err != nil {
		t.Fatal(err)
	}
	want := `{"message_type":"job","id":"j1","owner":"@ann","route":"libreoffice/convert","state":"failed",` +
		`"created":"2026-03-01T09:00:00Z","started":"2026-03-01T09:00:02Z","finished":"2026-03-01T09:00:03.25Z","seconds":1.25,` +
		`"files":[{"name":"=HYPERLINK(\"x\")","state":"failed","reason":"bad"},{"name":"b <&>.docx","state":"done"},{"name":"+1.odt","state":"failed"}],` +
		`"failed_files":2,"error":"-2 files failed: \"quoted\"\nsecond line","expired":true}` + "\n" +
		`{"message_type":"job","id":"j2","owner":"","route":"pdfengines/merge","state":"queued",` +
		`"created":"2026-03-01T09:00:00Z","started":"","finished":"","seconds":null,` +
		`"files":[{"name":"\tTab.pdf","state":""},{"name":"\rCR.pdf","state":""}],"failed_files":0,"error":"","expired":false}` + "\n"
	if b.String() != want {
		t.Errorf("WriteJSONL =\n%s\nwant\n%s", b.String(), want)
	}
	// Each line is an object of the export's fields, in the CSV's order.
	for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		dec := json.NewDecoder(strings.NewReader(line))
		dec.Token()
		var keys []string
		for dec.More() {
			k, _ := dec.Token()
			keys = append(keys, k.(string))
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("line %d: %v", i, err)
			}
		}
		if want := append([]string{"message_type"}, exportColumns...); !reflect.DeepEqual(keys, want) {
			t.Errorf("line %d keys = %v, want %v", i, keys, want)
		}
	}
	// No jobs, no lines; an empty list still has the CSV header.
	b.Reset()
	if err := WriteJSONL(&b, nil); err != nil || b.Len() != 0 {
		t.Errorf("WriteJSONL(nil) = %q, %v", b.String(), err)
	}
	b.Reset()
	if err := WriteCSV(&b, nil); err != nil || strings.Count(b.String(), "\n") != 1 {
		t.Errorf("WriteCSV(nil) = %q, %v", b.String(), err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestExportWriteError(t *testing.T) {
	for name, write := range map[string]func() error{
		"csv":   func() error { return WriteCSV(failWriter{}, exportJobs()) },
		"jsonl": func() error { return WriteJSONL(failWriter{}, exportJobs()) },
	} {
		if err := write(); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s to a failing writer: %v, want the writer's error", name, err)
		}
	}
}
