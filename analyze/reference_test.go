package analyze

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// refRow is one line of testdata/queueing-values.tsv, copied from
// ../shared/reference (sources in its last column).
type refRow struct {
	model, params, quantity, source string
	value                           float64
	line                            int
}

func readReference(t *testing.T) []refRow {
	t.Helper()
	f, err := os.Open("testdata/queueing-values.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []refRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), "#") || strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 5 {
			t.Fatalf("line %d: %d columns, want 5", n, len(cols))
		}
		v, err := strconv.ParseFloat(cols[3], 64)
		if err != nil {
			t.Fatalf("line %d: value %q: %v", n, cols[3], err)
		}
		rows = append(rows, refRow{cols[0], cols[1], cols[2], cols[4], v, n})
	}
	return rows
}

// params reads "lambda=3.86 mu=1.6 c=8".
func params(t *testing.T, s string) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	for _, kv := range strings.Fields(s) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("parameter %q: %v", kv, err)
		}
		m[k] = f
	}
	return m
}

// TestReferenceValues checks every row of the reference table; values are
// given to 6 significant digits, so the tolerance is a relative 1e-5.
func TestReferenceValues(t *testing.T) {
	for _, row := range readReference(t) {
		got, ok := reference(t, row)
		if !ok {
			t.Errorf("line %d: no check for %s %q %q", row.line, row.model, row.params, row.quantity)
			continue
		}
		tol := 1e-5
		if row.model == "Tail" {
			tol = 5e-4 // the table gives 4 digits
		}
		if rel := math.Abs(got-row.value) / math.Abs(row.value); rel > tol {
			t.Errorf("line %d: %s %s %s = %.9g, want %.9g (%s)", row.line, row.model, row.params, row.quantity, got, row.value, row.source)
		}
	}
}

func reference(t *testing.T, row refRow) (float64, bool) {
	if row.model == "Staffing" {
		return staffing(t, row)
	}
	p := params(t, row.params)
	switch row.model {
	case "M/M/c":
		r, err := MMc(t.Context(), p["lambda"], p["mu"], int(p["c"]))
		if err != nil {
			t.Fatal(err)
		}
		return pick(map[string]float64{"P0": r.P0, "Lq": r.Lq, "L": r.L, "Wq": r.Wq, "W": r.W, "P_wait": r.PWait, "ErlangB": r.ErlangB}, row.quantity)
	case "M/M/c/K", "M/M/1/N":
		c, k := int(p["c"]), int(p["K"])
		if row.model == "M/M/1/N" {
			c, k = 1, int(p["N"])
		}
		r, err := MMcK(t.Context(), p["lambda"], p["mu"], c, k)
		if err != nil {
			t.Fatal(err)
		}
		return pick(map[string]float64{"P0": r.P0, "PK": r.PK, "L": r.L, "Lq": r.Lq, "W": r.W, "Wq": r.Wq}, row.quantity)
	case "ErlangB":
		b, err := ErlangB(t.Context(), int(p["servers"]), p["load"])
		if err != nil {
			t.Fatal(err)
		}
		return b, true
	case "Tail":
		r, err := MMc(t.Context(), p["lambda"], p["mu"], int(p["c"]))
		if err != nil {
			t.Fatal(err)
		}
		return r.WaitPercentile(0.999), strings.HasPrefix(row.quantity, "Wq p99.9")
	}
	return 0, false
}

func pick(m map[string]float64, q string) (float64, bool) {
	v, ok := m[q]
	return v, ok
}

// staffing reads the staffing rows, whose parameters are in words.
func staffing(t *testing.T, row refRow) (float64, bool) {
	var lambda, mu float64
	var target Target
	switch {
	case row.params == "arrivals=30/h service=5min" && row.quantity == "min_c for P_wait<=0.10":
		lambda, mu, target = 30, 12, Target{MaxPWait: 0.10}
	case strings.HasPrefix(row.params, "load=10 Erlang, target P(Wq<=20s)>=0.80, mean service 180s"):
		lambda, mu, target = 10.0/180, 1.0/180, Target{ServiceLevel: 0.80, Within: 20}
	case row.params == "lambda=3.86 mu=1.6":
		lambda, mu = 3.86, 1.6
		switch row.quantity {
		case "min_c for P_wait<=0.05":
			target.MaxPWait = 0.05
		case "min_c for P_wait<=0.01":
			target.MaxPWait = 0.01
		case "min_c for Wq<=0.01s":
			target.MaxWq = 0.01
		default:
			return 0, false
		}
	default:
		return 0, false
	}
	c, _, err := Size(t.Context(), lambda, mu, target)
	if err != nil {
		t.Fatal(err)
	}
	return float64(c), true
}
