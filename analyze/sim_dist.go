package analyze

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Kinds of Arrivals and Service.
const (
	KindExp       = "exp"       // Poisson arrivals or exponential service, at Rate per second
	KindUniform   = "uniform"   // Count arrivals at independent uniform times in [0, Span]
	KindTrace     = "trace"     // arrivals at the given Times
	KindConst     = "const"     // every service takes Mean seconds
	KindLognormal = "lognormal" // lognormal service with mean Mean and coefficient of variation CV
)

// maxCount bounds the arrivals a uniform spec or a trace may hold: their
// times are kept in memory.
const maxCount = MaxCustomers

// OptionError is an invalid simulation option or spec. Field is the name
// of the option as the CLI's flag spells it ("arrivals", "servers"), so
// that the CLI can name the flag; Reason says what is wrong, value
// included. It unwraps to ErrInput.
type OptionError struct {
	Field  string
	Reason string
}

func (e *OptionError) Error() string { return e.Field + ": " + e.Reason }
func (e *OptionError) Unwrap() error { return ErrInput }

func optionErr(field, format string, args ...any) error {
	return &OptionError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Arrivals describe when customers arrive; ParseArrivals reads them from
// a spec. Exp arrivals go on as long as the simulation asks for more;
// uniform and trace arrivals fix the number of customers.
type Arrivals struct {
	Kind  string    // KindExp, KindUniform or KindTrace
	Rate  float64   // exp: arrivals per second
	Count int       // uniform: N
	Span  float64   // uniform: T, in seconds
	Times []float64 // trace: arrival times in seconds, non-decreasing
	File  string    // trace: where Times came from, for String
}

// Service describes service times; ParseService reads it from a spec.
type Service struct {
	Kind string  // KindExp, KindConst or KindLognormal
	Rate float64 // exp: services per second of one server
	Mean float64 // const and lognormal: mean service time in seconds
	CV   float64 // lognormal: standard deviation / mean
}

// ParseArrivals reads exp:RATE, uniform:N/T or trace:FILE. A trace file
// holds one arrival time in seconds per line, non-decreasing; blank lines
// and # comments are skipped. Errors are *OptionError for "arrivals".
func ParseArrivals(spec string) (Arrivals, error) {
	kind, arg, _ := strings.Cut(strings.TrimSpace(spec), ":")
	var a Arrivals
	var err error
	switch kind {
	case KindExp:
		a.Rate, err = parseNumber("rate", arg)
	case KindUniform:
		a, err = parseUniform(arg)
	case KindTrace:
		a, err = readTraceFile(arg)
	default:
		err = fmt.Errorf("want exp:RATE, uniform:N/T or trace:FILE")
	}
	a.Kind = kind
	if err == nil {
		err = a.check()
	}
	if err != nil {
		return Arrivals{}, optionErr("arrivals", "%q: %s", spec, reason(err))
	}
	return a, nil
}

func parseUniform(arg string) (Arrivals, error) {
	n, t, ok := strings.Cut(arg, "/")
	if !ok {
		return Arrivals{}, fmt.Errorf("want uniform:N/T (N arrivals within T seconds)")
	}
	count, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil {
		return Arrivals{}, fmt.Errorf("count %q is not an integer", n)
	}
	span, err := parseNumber("span", t)
	return Arrivals{Count: count, Span: span}, err
}

func readTraceFile(name string) (Arrivals, error) {
	if name == "" {
		return Arrivals{}, fmt.Errorf("want trace:FILE")
	}
	// A FIFO or a device might never end, a huge file of comments would
	// be read whole: neither heeds a signal. O_NONBLOCK: opening a FIFO
	// would wait for a writer.
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return Arrivals{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return Arrivals{}, err
	case !fi.Mode().IsRegular():
		return Arrivals{}, fmt.Errorf("%s is not a regular file", name)
	case fi.Size() > MaxTraceBytes:
		return Arrivals{}, fmt.Errorf("%s holds %d bytes, more than the limit of %d", name, fi.Size(), MaxTraceBytes)
	}
	times, err := ReadTrace(io.LimitReader(f, MaxTraceBytes)) // even if it grows
	return Arrivals{Times: times, File: name}, err
}

// ReadTrace reads arrival times in seconds, one per line; blank lines and
// text after # are skipped. The times must be finite, non-negative and
// non-decreasing, and there must be at least one.
func ReadTrace(r io.Reader) ([]float64, error) {
	var times []float64
	sc := bufio.NewScanner(r)
	line := 1
	for ; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		if text = strings.TrimSpace(text); text == "" {
			continue
		}
		t, err := strconv.ParseFloat(text, 64)
		switch {
		case err != nil || math.IsNaN(t) || math.IsInf(t, 0):
			return nil, fmt.Errorf("line %d: %q is not a time in seconds", line, text)
		case t < 0:
			return nil, fmt.Errorf("line %d: time %v is negative", line, t)
		case len(times) > 0 && t < times[len(times)-1]:
			return nil, fmt.Errorf("line %d: time %v is before the previous one, %v", line, t, times[len(times)-1])
		case t > MaxRate:
			return nil, fmt.Errorf("line %d: time %v is past the limit %g", line, t, MaxRate)
		case len(times) == maxCount:
			return nil, fmt.Errorf("more than %d arrivals", maxCount)
		}
		times = append(times, t)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("line %d: longer than %d bytes, no arrival time", line, bufio.MaxScanTokenSize)
	} else if err != nil {
		return nil, err
	}
	if len(times) == 0 {
		return nil, fmt.Errorf("no arrival times")
	}
	return times, nil
}

// ParseService reads exp:RATE, const:SECONDS or lognormal:MEAN,CV. Errors
// are *OptionError for "service".
func ParseService(spec string) (Service, error) {
	kind, arg, _ := strings.Cut(strings.TrimSpace(spec), ":")
	s := Service{Kind: kind}
	var err error
	switch kind {
	case KindExp:
		s.Rate, err = parseNumber("rate", arg)
	case KindConst:
		s.Mean, err = parseNumber("time", arg)
	case KindLognormal:
		mean, cv, ok := strings.Cut(arg, ",")
		if !ok {
			err = fmt.Errorf("want lognormal:MEAN,CV")
			break
		}
		if s.Mean, err = parseNumber("mean", mean); err == nil {
			s.CV, err = parseNumber("cv", cv)
		}
	default:
		err = fmt.Errorf("want exp:RATE, const:SECONDS or lognormal:MEAN,CV")
	}
	if err == nil {
		err = s.check()
	}
	if err != nil {
		return Service{}, optionErr("service", "%q: %s", spec, reason(err))
	}
	return s, nil
}

func parseNumber(name, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q is not a number", name, s)
	}
	return v, nil
}

// reason is err's message without an OptionError's field, for errors
// that a parser re-labels with its spec.
func reason(err error) string {
	if oe, ok := err.(*OptionError); ok {
		return oe.Reason
	}
	return err.Error()
}

// Check reports whether a describes an arrival process Simulate can run,
// as an *OptionError for "arrivals".
func (a Arrivals) Check() error { return a.check() }

func (a Arrivals) check() error {
	switch a.Kind {
	case KindExp:
		return positive("arrivals", "rate", a.Rate)
	case KindUniform:
		if a.Count < 1 || a.Count > maxCount {
			return optionErr("arrivals", "count %d is not between 1 and %d", a.Count, maxCount)
		}
		return positive("arrivals", "span", a.Span)
	case KindTrace:
		if len(a.Times) == 0 {
			return optionErr("arrivals", "a trace needs at least one arrival time")
		}
		prev := 0.0
		for i, t := range a.Times {
			if !(t >= prev) || t > MaxRate {
				return optionErr("arrivals", "trace time %d, %v, is not between the one before and the limit %g", i+1, t, MaxRate)
			}
			prev = t
		}
		return nil
	}
	return optionErr("arrivals", "unknown kind %q (want exp, uniform or trace)", a.Kind)
}

// Check reports whether s describes service times Simulate can draw, as
// an *OptionError for "service".
func (s Service) Check() error { return s.check() }

func (s Service) check() error {
	switch s.Kind {
	case KindExp:
		return positive("service", "rate", s.Rate)
	case KindConst:
		return positive("service", "time", s.Mean)
	case KindLognormal:
		if err := positive("service", "mean", s.Mean); err != nil {
			return err
		}
		if !(s.CV >= 0 && s.CV <= MaxCV) {
			return optionErr("service", "cv %v is not between 0 and the limit %d", s.CV, MaxCV)
		}
		return nil
	}
	return optionErr("service", "unknown kind %q (want exp, const or lognormal)", s.Kind)
}

func positive(field, name string, v float64) error {
	if p := RateProblem(v); p != "" {
		return optionErr(field, "%s %s", name, p)
	}
	return nil
}

// String returns a's spec.
func (a Arrivals) String() string {
	switch a.Kind {
	case KindExp:
		return fmt.Sprintf("exp:%v", a.Rate)
	case KindUniform:
		return fmt.Sprintf("uniform:%d/%v", a.Count, a.Span)
	case KindTrace:
		return "trace:" + a.File
	}
	return a.Kind
}

// String returns s's spec.
func (s Service) String() string {
	switch s.Kind {
	case KindExp:
		return fmt.Sprintf("exp:%v", s.Rate)
	case KindConst:
		return fmt.Sprintf("const:%v", s.Mean)
	case KindLognormal:
		return fmt.Sprintf("lognormal:%v,%v", s.Mean, s.CV)
	}
	return s.Kind
}

// count is the number of arrivals a fixes, or 0 for exp arrivals.
func (a Arrivals) count() int {
	switch a.Kind {
	case KindUniform:
		return a.Count
	case KindTrace:
		return len(a.Times)
	}
	return 0
}

// arrivalStream yields one replication's arrival times in order.
type arrivalStream struct {
	rate  float64   // exp, else 0
	t     float64   // exp: the last arrival
	times []float64 // uniform and trace
	next  int
}

func (a Arrivals) stream(r *rand.Rand) arrivalStream {
	switch a.Kind {
	case KindExp:
		return arrivalStream{rate: a.Rate}
	case KindUniform:
		times := make([]float64, a.Count)
		for i := range times {
			times[i] = r.Float64() * a.Span
		}
		slices.Sort(times)
		return arrivalStream{times: times}
	}
	return arrivalStream{times: a.Times} // read only: replications share it
}

// at returns the next arrival time; the caller asks for no more than the
// number of customers.
func (s *arrivalStream) at(r *rand.Rand) float64 {
	if s.rate > 0 {
		s.t += r.ExpFloat64() / s.rate
		return s.t
	}
	s.next++
	return s.times[s.next-1]
}

// sampler draws service times; lognormal's parameters are worked out once.
type sampler struct {
	kind        string
	rate, mean  float64
	logm, sigma float64
}

// sampler chooses σ² = ln(1+CV²) and m = ln(MEAN) − σ²/2 for lognormal
// service, which gives it mean MEAN and coefficient of variation CV.
func (s Service) sampler() sampler {
	sm := sampler{kind: s.Kind, rate: s.Rate, mean: s.Mean}
	if s.Kind == KindLognormal {
		v := math.Log1p(s.CV * s.CV)
		sm.sigma, sm.logm = math.Sqrt(v), math.Log(s.Mean)-v/2
	}
	return sm
}

func (s *sampler) draw(r *rand.Rand) float64 {
	switch s.kind {
	case KindExp:
		return r.ExpFloat64() / s.rate
	case KindLognormal:
		return math.Exp(s.logm + s.sigma*r.NormFloat64())
	}
	return s.mean
}

// estimate is a point estimate with its 95 % interval.
type estimate struct{ mean, low, high float64 }

// overReplications takes each measure's mean over the replications, with
// a Student t interval from their spread.
func overReplications(reps []tally, c int) (est [nMetrics]estimate) {
	samples := make([][nMetrics]float64, len(reps))
	for i, r := range reps {
		samples[i] = r.values(c)
	}
	for m := range est {
		mean, half := meanCI(samples, m)
		est[m] = estimate{mean, mean - half, mean + half}
	}
	return est
}

// overBatches takes each measure over the whole replication, with a
// Student t interval from the spread of its batches' values (batch means).
func overBatches(whole tally, batches []tally, c int) (est [nMetrics]estimate) {
	samples := make([][nMetrics]float64, len(batches))
	for i, b := range batches {
		samples[i] = b.values(c)
	}
	point := whole.values(c)
	for m := range est {
		_, half := meanCI(samples, m)
		est[m] = estimate{point[m], point[m] - half, point[m] + half}
	}
	return est
}

// meanCI is the mean of measure m over the samples that have it, and the
// half-width of its 95 % Student t interval (0 with fewer than two).
func meanCI(samples [][nMetrics]float64, m int) (mean, half float64) {
	var n, sum, sq float64
	for _, s := range samples {
		if !math.IsNaN(s[m]) {
			n, sum = n+1, sum+s[m]
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	mean = sum / n
	if n < 2 {
		return mean, 0
	}
	for _, s := range samples {
		if !math.IsNaN(s[m]) {
			sq += (s[m] - mean) * (s[m] - mean)
		}
	}
	return mean, tQuantile975(int(n)-1) * math.Sqrt(sq/(n-1)/n)
}

func littleCheck(reps []tally) LittleCheck {
	var lc LittleCheck
	for _, r := range reps {
		// λ_eff·W = (served/dur)·(w/served) = w/dur; those who
		// abandoned spent their wait in the system too.
		lc.L += r.area / r.dur / float64(len(reps))
		lc.LambdaW += (r.w + r.abandonWait) / r.dur / float64(len(reps))
	}
	lc.L, lc.LambdaW = finite(lc.L), finite(lc.LambdaW)
	if lc.LambdaW > 0 {
		lc.RelDiff = math.Abs(lc.L-lc.LambdaW) / lc.LambdaW
	}
	return lc
}

// t975 holds the 0.975 quantiles of Student's t with 1..30 degrees of
// freedom (TestT975 checks them against the density, integrated).
var t975 = [...]float64{
	12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836,
	2.446911851, 2.364624252, 2.306004135, 2.262157163, 2.228138852,
	2.200985160, 2.178812830, 2.160368656, 2.144786688, 2.131449546,
	2.119905299, 2.109815578, 2.100922040, 2.093024054, 2.085963447,
	2.079613845, 2.073873068, 2.068657610, 2.063898562, 2.059538553,
	2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
}

// tQuantile975 is the 0.975 quantile of Student's t with df degrees of
// freedom, the factor of a two-sided 95 % interval. Past the table it uses
// the Cornish-Fisher expansion in 1/df to the fourth order, whose error at
// df = 31 is below 1e-6 and shrinks from there. One quantile level is all
// Simulate needs, which is why it is this and not a statistics library.
func tQuantile975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	if df <= len(t975) {
		return t975[df-1]
	}
	const z = 1.959963984540054 // the normal's 0.975 quantile
	z2, n := z*z, float64(df)
	g1 := (z2 + 1) * z / 4
	g2 := ((5*z2+16)*z2 + 3) * z / 96
	g3 := (((3*z2+19)*z2+17)*z2 - 15) * z / 384
	g4 := ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) * z / 92160
	return z + g1/n + g2/(n*n) + g3/(n*n*n) + g4/(n*n*n*n)
}
