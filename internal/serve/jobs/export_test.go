package jobs

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
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
	j1 := "j1,'@ann,libreoffice/convert,failed,2026-03-01T09:00:00Z,2026-03-01T09:00:02Z,2026-03-01T09:00:03.25Z,1.250,"
	j1end := `,2,"'-2 files failed: ""quoted""` + "\nsecond line\",true\n"
	j2 := "j2,,pdfengines/merge,queued,2026-03-01T09:00:00Z,,,,"
	want := "id,owner,route,state,created,started,finished,seconds,file,file_state,file_reason,failed_files,error,expired\n" +
		j1 + `"'=HYPERLINK(""x"")",failed,bad` + j1end +
		j1 + "b <&>.docx,done," + j1end +
		j1 + "'+1.odt,failed," + j1end +
		j2 + "'\tTab.pdf,,,0,,false\n" +
		j2 + "\"'\rCR.pdf\",,,0,,false\n"
	if b.String() != want {
		t.Errorf("WriteCSV =\n%q\nwant\n%q", b.String(), want)
	}
	// A CSV reader gets the cells back, defused.
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 || recs[1][12] != "'-2 files failed: \"quoted\"\nsecond line" || recs[1][1] != "'@ann" || recs[1][10] != "bad" {
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

// TestExportsAgree: the CSV carries every field the JSON Lines carry,
// each file's state and reason too: the jobs read back from either are
// the same.
func TestExportsAgree(t *testing.T) {
	var c, j bytes.Buffer
	if err := WriteCSV(&c, exportJobs()); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONL(&j, exportJobs()); err != nil {
		t.Fatal(err)
	}
	var fromJSON []exported
	dec := json.NewDecoder(&j)
	for dec.More() {
		var e exported
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		fromJSON = append(fromJSON, e)
	}
	fromCSV := readCSVExport(t, c.String())
	if !reflect.DeepEqual(fromCSV, fromJSON) {
		t.Errorf("the CSV export reads back as\n%+v\nthe JSON Lines as\n%+v", fromCSV, fromJSON)
	}
}

// readCSVExport reads WriteCSV's rows back into jobs, a row per file,
// by the header's names: a field the CSV lacks stays zero and the
// comparison with the JSON Lines shows it.
func readCSVExport(t *testing.T, text string) []exported {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	cell := func(row []string, name string) string {
		i, ok := col[name]
		if !ok {
			return ""
		}
		v := row[i]
		if len(v) > 1 && v[0] == '\'' && strings.ContainsRune("=+-@\t\r", rune(v[1])) {
			v = v[1:] // defused
		}
		return v
	}
	var out []exported
	for _, row := range recs[1:] {
		id := cell(row, "id")
		if len(out) == 0 || out[len(out)-1].ID != id {
			e := exported{MessageType: "job", ID: id, Owner: cell(row, "owner"), Route: cell(row, "route"),
				State: State(cell(row, "state")), Created: cell(row, "created"), Started: cell(row, "started"),
				Finished: cell(row, "finished"), Error: cell(row, "error"), Expired: cell(row, "expired") == "true",
				Files: []FileState{}}
			if s := cell(row, "seconds"); s != "" {
				f, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatalf("seconds %q: %v", s, err)
				}
				e.Seconds = &f
			}
			e.FailedFiles, _ = strconv.Atoi(cell(row, "failed_files"))
			out = append(out, e)
		}
		if name := cell(row, "file"); name != "" {
			e := &out[len(out)-1]
			e.Files = append(e.Files, FileState{Name: name, State: cell(row, "file_state"), Reason: cell(row, "file_reason")})
		}
	}
	return out
}
