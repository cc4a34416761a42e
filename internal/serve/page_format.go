package serve

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
)

func init() {
	pageFuncs["num"] = num
}

// num is a number for people with that many decimals: a float, an
// integer, or a pointer to one (analyze's figures that may be undefined);
// "–" for a nil pointer, NaN or an infinity. Any other value is an error,
// so that a page never prints Go's syntax (%!f(*float64=0xc...)): the
// template fails, and its test with it.
func num(decimals int, v any) (string, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return "–", nil
		}
		rv = rv.Elem()
	}
	switch {
	case rv.CanFloat():
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "–", nil
		}
		return strconv.FormatFloat(f, 'f', decimals, 64), nil
	case rv.CanInt():
		return strconv.FormatInt(rv.Int(), 10), nil
	case rv.CanUint():
		return strconv.FormatUint(rv.Uint(), 10), nil
	case !rv.IsValid():
		return "–", nil
	}
	return "", fmt.Errorf("num: %T is not a number", v)
}
