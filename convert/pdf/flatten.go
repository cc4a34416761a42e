package pdf

import (
	"errors"
	"io"
)

func flatten(rs io.ReadSeeker, w io.Writer) error { return errors.New("TODO") }
