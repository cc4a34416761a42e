package pdu

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

type vector struct {
	id, direction, source, hex, note string
	want                             map[string]any
}

// readVectors reads ../testdata/pdu-vectors.tsv, public PDUs with their
// decoded fields from four projects' test suites (sources named per row).
func readVectors(t testing.TB) []vector {
	t.Helper()
	f, err := os.Open("../testdata/pdu-vectors.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []vector
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "id\t") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			t.Fatalf("row %q: %d fields, want 6", line, len(f))
		}
		v := vector{id: f[0], direction: f[1], source: f[2], hex: f[3], note: f[5]}
		if err := json.Unmarshal([]byte(f[4]), &v.want); err != nil {
			t.Fatalf("%s: expected_json: %v", v.id, err)
		}
		vs = append(vs, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return vs
}

// TestVectors decodes every row of pdu-vectors.tsv in its direction and
// compares each field of expected_json with the decoded message's JSON.
func TestVectors(t *testing.T) {
	vs := readVectors(t)
	if len(vs) != 22 {
		t.Errorf("got %d vectors, want 22", len(vs))
	}
	for _, v := range vs {
		t.Run(v.id, func(t *testing.T) {
			dir, err := ParseDirection(v.direction)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Decode(v.hex, dir)
			if err != nil {
				t.Fatalf("Decode: %v (%s)", err, v.note)
			}
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			for k, want := range v.want {
				if g, ok := got[k]; !ok || !reflect.DeepEqual(g, want) {
					t.Errorf("%s: got %v, want %v", k, g, want)
				}
			}
		})
	}
}

// TestVectorsReencode encodes the SUBMIT vectors from their decoded
// fields and gets the same hex (V1-V3, V5-V9, V10: calq's own choices of
// TOA and validity match those vectors').
func TestVectorsReencode(t *testing.T) {
	for _, v := range readVectors(t) {
		if v.direction != "mo" {
			continue
		}
		m, err := Decode(v.hex, MO)
		if err != nil {
			t.Fatalf("%s: %v", v.id, err)
		}
		if m.TOA == TOANational || m.Concat != nil || m.SMSC != "" && !strings.HasPrefix(m.SMSC, "+") {
			continue // calq writes national numbers with TOA 81; concat refs and MRs differ
		}
		o := SubmitOptions{SMSC: m.SMSC, Report: m.SRR, Flash: m.Class == 0, ValidUntil: m.VPAbsolute}
		if m.VPSeconds > 0 {
			o.Validity = time.Duration(m.VPSeconds) * time.Second
		}
		parts, _, err := EncodeSubmit(m.DA, m.Text, o)
		if err != nil {
			t.Fatalf("%s: %v", v.id, err)
		}
		if len(parts) != 1 || !strings.EqualFold(parts[0].Hex, v.hex) {
			t.Errorf("%s: got %v, want %s", v.id, parts, v.hex)
		}
		if want := len(v.hex)/2 - smscOctets(t, v.hex) - 1; parts[0].TPDULength != want {
			t.Errorf("%s: TPDULength %d, want %d", v.id, parts[0].TPDULength, want)
		}
	}
}

func smscOctets(t *testing.T, hex string) int {
	n, err := strconv.ParseUint(hex[:2], 16, 8)
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}
