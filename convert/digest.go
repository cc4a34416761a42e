package convert

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"syscall"

	"golang.org/x/crypto/scrypt"

	"calq/convert/lo"
	"calq/convert/pdf"
)

// openRegular opens path for reading only when it is a regular file:
// O_NONBLOCK keeps a FIFO swapped in since planning from blocking the
// open, and the check is on the opened file, not the name.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := regular(f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// modeKind names a file's type for messages.
func modeKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// copyCtx copies src to dst in chunks, checking ctx between them.
func copyCtx(ctx context.Context, dst io.Writer, src io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := src.Read(buf)
		if k > 0 {
			if _, werr := dst.Write(buf[:k]); werr != nil {
				return n, werr
			}
			n += int64(k)
		}
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// fileSum is the SHA-256 of a regular file's content, in hex.
func fileSum(ctx context.Context, path string) (string, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := copyCtx(ctx, h, f); err != nil {
		return "", err
	}
	return sumHex(h), nil
}

func sumHex(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// fingerprint digests the options that shape a PDF. Passwords never
// enter it as they are: each is replaced by its scrypt hash under the
// store's salt, so the digest is no fast oracle for guessing them.
// A watermark image enters by its content, not only its name. LibreOffice's
// export options enter only when set, so that PDFs made before they
// existed stay unchanged; of the source's password, only whether there
// is one.
func fingerprint(ctx context.Context, o Options, salt []byte) (string, error) {
	post := o.Post
	var wmSum string
	if w := post.Watermark; w != nil && w.Image != "" && o.Merge == "" {
		var err error
		if wmSum, err = fileSum(ctx, w.Image); err != nil {
			return "", fmt.Errorf("watermark image %s: %w", w.Image, err)
		}
	}
	if o.Merge != "" {
		post = pdf.Post{} // per-file PDFs stay plain when merging
	}
	var enc *struct {
		User, Owner string
		Permissions pdf.Permissions
	}
	if post.Encrypt != nil {
		e := *post.Encrypt
		user, err := slowHash(e.UserPassword, salt)
		if err != nil {
			return "", err
		}
		owner, err := slowHash(e.OwnerPassword, salt)
		if err != nil {
			return "", err
		}
		enc = &struct {
			User, Owner string
			Permissions pdf.Permissions
		}{user, owner, e.Permissions}
		post.Encrypt = nil
	}
	var export any
	if !o.Export.IsZero() {
		export = struct {
			lo.Export
			HasPassword bool `json:"password,omitempty"`
		}{o.Export, o.Export.Password != ""}
	}
	b, err := json.Marshal(struct {
		PDFA    int
		Post    pdf.Post
		Encrypt any
		Image   string
		Export  any `json:",omitempty"`
	}{o.PDFA, post, enc, wmSum, export})
	if err != nil {
		return "", fmt.Errorf("digest the options: %w", err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

// slowHash is scrypt (N 2^15, r 8, p 1: about 0.1 s and 32 MiB) of a
// secret; "" stays "".
func slowHash(secret string, salt []byte) (string, error) {
	if secret == "" {
		return "", nil
	}
	k, err := scrypt.Key([]byte(secret), salt, 1<<15, 8, 1, 32)
	if err != nil {
		return "", fmt.Errorf("hash a password: %w", err)
	}
	return hex.EncodeToString(k), nil
}

// jobKey names the job that turns the input real, with digest inSum,
// into output over whatever is there now (outSum, "" for nothing), with
// options opts. Two runs planning the same work name it alike, so the
// journal's claim lets only one of them do it; two inputs of the same
// bytes are different work.
func jobKey(output, real, opts, inSum, outSum string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s", output, real, opts, inSum, outSum)
	return "convert:" + sumHex(h)[:32]
}
