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
// again. The chunks go in one transaction: a blob is whole or absent.
func (q *Queue) PutFile(ctx context.Context, path string) (string, error) {
	digest, err := fileDigest(path)
	if err != nil {
		return "", fmt.Errorf("store %s: %w", path, err)
	}
	err = pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		var have bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM blobs WHERE digest = $1)`, digest).Scan(&have); err != nil || have {
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
				if _, err := tx.Exec(ctx, `INSERT INTO blobs (digest, seq, data) VALUES ($1, $2, $3)
					ON CONFLICT DO NOTHING`, digest, seq, buf[:n]); err != nil {
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
	})
	if err != nil {
		return "", fmt.Errorf("store %s: %w", path, err)
	}
	return digest, nil
}

// GetFile writes the blob digest to the file at path (created 0600) and
// checks its digest; on any failure it removes what it wrote.
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
			return fmt.Errorf("fetch blob %.12s: %w", digest, err)
		}
		if _, err := w.Write(data); err != nil {
			return fmt.Errorf("fetch blob %.12s: %w", digest, err)
		}
		chunks++
	}
	if chunks == 0 {
		return fmt.Errorf("fetch blob %.12s: not in the database", digest)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != digest {
		return fmt.Errorf("fetch blob %.12s: content has digest %.12s", digest, got)
	}
	return nil
}

func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
