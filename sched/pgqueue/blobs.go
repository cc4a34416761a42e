package pgqueue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/jackc/pgx/v5"
)

// blobChunk is the size of a blob's rows: files travel through the
// database in chunks of bytea, never whole in memory.
const blobChunk = 1 << 20

// PutFile stores the file at path as a blob, keyed by the SHA-256 of its
// content, and returns that digest. A blob already stored is not stored
// again, but touched: its age starts again, so that history prune keeps
// it (blobGrace) until the job that reuses it is submitted. The chunks go
// in one transaction: a blob is whole or absent. An outage is waited out
// and the transaction run again.
func (q *Queue) PutFile(ctx context.Context, path string) (string, error) {
	digest, size, err := fileDigest(path)
	if err != nil {
		return "", fmt.Errorf("store %s: %w", path, err)
	}
	chunks := max(1, (size+blobChunk-1)/blobChunk)
	err = q.retry(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
			// The update waits for a prune deleting the blob, then
			// touches what is left of it: all of it, or less.
			tag, err := tx.Exec(ctx, `UPDATE blobs SET created = now() WHERE digest = $1`, digest)
			if err != nil || tag.RowsAffected() == chunks {
				return err
			}
			return putChunks(ctx, tx, digest, path)
		})
	})
	if err != nil {
		return "", fmt.Errorf("store %s: %w", path, err)
	}
	return digest, nil
}

// putChunks stores the file at path as blob digest, in place of any
// chunks of it left.
func putChunks(ctx context.Context, tx pgx.Tx, digest, path string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM blobs WHERE digest = $1`, digest); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, blobChunk)
	for seq := 0; ; seq++ {
		n, err := io.ReadFull(f, buf)
		if n > 0 || seq == 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO blobs (digest, seq, data) VALUES ($1, $2, $3)`,
				digest, seq, buf[:n]); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// GetFile writes the blob digest to the file at path (created 0600) and
// checks its digest; on any failure it removes what it wrote. An outage
// is waited out and the blob read again from its start.
func (q *Queue) GetFile(ctx context.Context, digest, path string) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("fetch blob %.12s: %w", digest, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("fetch blob %.12s: %w", digest, cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	err = q.retry(ctx, func(ctx context.Context) error { return q.getChunks(ctx, digest, f) })
	if err != nil {
		return fmt.Errorf("fetch blob %.12s: %w", digest, err)
	}
	return nil
}

// getChunks writes blob digest to f from its start.
func (q *Queue) getChunks(ctx context.Context, digest string, f *os.File) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	h := sha256.New()
	w := io.MultiWriter(f, h)
	chunks := 0
	for seq := 0; ; seq++ {
		var data []byte
		err := q.pool.QueryRow(ctx, `SELECT data FROM blobs WHERE digest = $1 AND seq = $2`, digest, seq).Scan(&data)
		if errors.Is(err, pgx.ErrNoRows) {
			break
		}
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
		chunks++
	}
	if chunks == 0 {
		return errors.New("not in the database")
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != digest {
		return fmt.Errorf("content has digest %.12s", got)
	}
	return nil
}

func fileDigest(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
