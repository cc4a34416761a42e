package lo_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"calq/convert/lo"
)

// A pool converts documents on warm LibreOffice instances; each instance
// takes one document at a time, with its own deadline.
func ExampleNew() {
	ctx := context.Background()
	pool, err := lo.New(ctx, lo.Options{Instances: 2})
	var hint interface{ Hint() string }
	if errors.As(err, &hint) {
		fmt.Println("hint:", hint.Hint())
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	inst := pool.Instances()[0]
	docCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err = inst.Convert(docCtx, "report.docx", "report.pdf", lo.ConvertOptions{PDFA: 2})
	var ce *lo.ConvertError
	if errors.As(err, &ce) {
		fmt.Println(ce.Reason) // "load failed", "timeout", ...
	}
}
