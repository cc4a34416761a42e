package mail

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// undeliveredSchema is version 1 of the mail package's migrations: the
// PDFs whose mail failed, per delivery (the recipients and the output
// directory), so that the next run to the same recipients sends them.
const undeliveredSchema = `
CREATE TABLE IF NOT EXISTS mail_undelivered (
	delivery TEXT NOT NULL, -- Delivery.key: the sorted recipients and the output directory
	file     TEXT NOT NULL, -- the PDF's absolute path
	PRIMARY KEY (delivery, file)
);
`

// DB is what the record of undelivered PDFs needs of the journal
// (*journal.Journal has it).
type DB interface {
	Migrate(ctx context.Context, pkg string, migrations []string) error
	Write(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error
	Query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Undelivered is the record, in the journal's file, of the PDFs a failed
// mail did not deliver. It is safe for concurrent use.
type Undelivered struct{ db DB }

// OpenUndelivered creates or upgrades the record's table in db.
func OpenUndelivered(ctx context.Context, db DB) (*Undelivered, error) {
	if err := db.Migrate(ctx, "mail", []string{undeliveredSchema}); err != nil {
		return nil, fmt.Errorf("open the record of undelivered mail: %w", err)
	}
	return &Undelivered{db: db}, nil
}

// Files returns the PDFs recorded undelivered for delivery, sorted.
func (u *Undelivered) Files(ctx context.Context, delivery string) ([]string, error) {
	rows, err := u.db.Query(ctx, `SELECT file FROM mail_undelivered WHERE delivery = ? ORDER BY file`, delivery)
	if err != nil {
		return nil, fmt.Errorf("read undelivered mail: %w", err)
	}
	defer rows.Close()
	var files []string
	for rows.Next() {
		var f string
		if err := rows.Scan(&f); err != nil {
			return nil, fmt.Errorf("read undelivered mail: %w", err)
		}
		files = append(files, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read undelivered mail: %w", err)
	}
	return files, nil
}

// Set records exactly files as undelivered for delivery: none after a
// mail that went out, all it held after one that failed.
func (u *Undelivered) Set(ctx context.Context, delivery string, files []string) error {
	err := u.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM mail_undelivered WHERE delivery = ?`, delivery); err != nil {
			return err
		}
		for _, f := range files {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO mail_undelivered (delivery, file) VALUES (?, ?)`,
				delivery, f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record undelivered mail: %w", err)
	}
	return nil
}

// deliveryKey names a delivery in the record: its recipients (in any
// order) and the output directory, so that what failed for alice is not
// sent to bob, nor the PDFs of one tree with another's.
func deliveryKey(to []string, out string) string {
	abs, err := filepath.Abs(out)
	if err != nil {
		abs = out
	}
	addrs := slices.Clone(to)
	for i, a := range addrs {
		addrs[i] = strings.ToLower(a)
	}
	slices.Sort(addrs)
	return strings.Join(slices.Compact(addrs), ",") + "\x00" + abs
}
