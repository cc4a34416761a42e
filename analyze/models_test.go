package analyze

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The tables under testdata/models/ hold reference values for the models
// beyond M/M/c (Erlang A, priority classes, M/G/1 and G/G/c, Engset,
// M/M/∞, networks), one file per model family. Each row names its source:
// a published table or worked example, or the documented output of an
// anchor (R's queueing package, Octave's queueing package, pyworkforce,
// Ciw). Columns, tab-separated:
//
//	model	params	quantity	value	tolerance	source
//
// params are space-separated key=value pairs whose values may be comma
// lists ("lambda=0.5,1,2 mu=3 c=2"); tolerance is relative (absolute when
// value is 0) and matches the digits the source prints. A model's test
// file registers the function that computes its quantities (registerModel,
// from an init function), so that each family keeps its own code.

// modelRow is one row of a table under testdata/models.
type modelRow struct {
	file                            string
	line                            int
	model, params, quantity, source string
	value, tolerance                float64
}

// modelCheck computes a model's quantities for a row's parameters.
type modelCheck func(t *testing.T, p modelParams) map[string]float64

var modelChecks = map[string]modelCheck{}

// registerModel makes model's rows checkable; call it from an init function.
func registerModel(model string, f modelCheck) {
	if _, dup := modelChecks[model]; dup {
		panic("registerModel: " + model + " twice")
	}
	modelChecks[model] = f
}

// modelParams are a row's parameters.
type modelParams map[string]string

// float reads a number; the test fails if it is missing or not a number.
func (p modelParams) float(t *testing.T, key string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(p[key], 64)
	if err != nil {
		t.Fatalf("parameter %s=%q: %v", key, p[key], err)
	}
	return v
}

// int reads a whole number.
func (p modelParams) int(t *testing.T, key string) int {
	t.Helper()
	v, err := strconv.Atoi(p[key])
	if err != nil {
		t.Fatalf("parameter %s=%q: %v", key, p[key], err)
	}
	return v
}

// floats reads a comma list of numbers.
func (p modelParams) floats(t *testing.T, key string) []float64 {
	t.Helper()
	var vs []float64
	for _, s := range strings.Split(p[key], ",") {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("parameter %s=%q: %v", key, p[key], err)
		}
		vs = append(vs, v)
	}
	return vs
}

func readModelTables(t *testing.T) []modelRow {
	t.Helper()
	files, err := filepath.Glob("testdata/models/*.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var rows []modelRow
	for _, name := range files {
		rows = append(rows, readModelTable(t, name)...)
	}
	return rows
}

func readModelTable(t *testing.T, name string) []modelRow {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []modelRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 6 {
			t.Fatalf("%s:%d: %d columns, want 6", name, n, len(cols))
		}
		row := modelRow{file: name, line: n, model: cols[0], params: cols[1], quantity: cols[2], source: cols[5]}
		if row.value, err = strconv.ParseFloat(cols[3], 64); err != nil {
			t.Fatalf("%s:%d: value %q: %v", name, n, cols[3], err)
		}
		if row.tolerance, err = strconv.ParseFloat(cols[4], 64); err != nil || row.tolerance < 0 {
			t.Fatalf("%s:%d: tolerance %q: %v", name, n, cols[4], err)
		}
		if strings.TrimSpace(row.source) == "" {
			t.Fatalf("%s:%d: no source", name, n)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func parseModelParams(t *testing.T, s string) modelParams {
	t.Helper()
	p := modelParams{}
	for _, kv := range strings.Fields(s) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("parameter %q is not key=value", kv)
		}
		p[k] = v
	}
	return p
}

// TestModelReferences checks every row of the tables under
// testdata/models against the model's registered computation.
func TestModelReferences(t *testing.T) {
	for _, row := range readModelTables(t) {
		where := row.file + ":" + strconv.Itoa(row.line)
		check, ok := modelChecks[row.model]
		if !ok {
			t.Errorf("%s: no check registered for the model %q", where, row.model)
			continue
		}
		got, ok := check(t, parseModelParams(t, row.params))[row.quantity]
		if !ok {
			t.Errorf("%s: %s %s has no quantity %q", where, row.model, row.params, row.quantity)
			continue
		}
		diff := math.Abs(got - row.value)
		if row.value != 0 {
			diff /= math.Abs(row.value)
		}
		if !(diff <= row.tolerance) {
			t.Errorf("%s: %s %s %s = %.10g, want %.10g ± %g (%s)", where, row.model, row.params, row.quantity, got, row.value, row.tolerance, row.source)
		}
	}
}
