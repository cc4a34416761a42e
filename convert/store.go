package convert

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"calq/sched/journal"
)

// Record is the provenance of one PDF calq wrote: which input bytes and
// which options produced which output bytes. A file at an output path is
// calq's when its digest is the record's OutputSum (placed and recorded)
// or PendingSum (placed by a run killed before it could record it).
type Record struct {
	Output     string // the PDF's absolute path, bytes as on disk
	Input      string // the input's real path (symlinks resolved); from before calq 22, as walked
	InputSum   string // SHA-256 of the input bytes actually converted
	Options    string // digest of the options (see fingerprint)
	OutputSum  string // SHA-256 of the PDF, once placed; "" before
	PendingSum string // SHA-256 of a PDF about to be placed; "" after
	Converted  time.Time
}

// Store keeps the records. *SQLStore keeps them in the journal's file;
// an in-memory one serves a run without a journal.
type Store interface {
	// Records returns the records of outputs below dir (an absolute
	// directory), by output path.
	Records(ctx context.Context, dir string) (map[string]Record, error)
	// Record returns output's record, if any.
	Record(ctx context.Context, output string) (Record, bool, error)
	// Pending records that a PDF with digest sum is about to be placed
	// at r.Output; Placed that it is there. Both keep r's other fields.
	Pending(ctx context.Context, r Record) error
	Placed(ctx context.Context, output string) error
	// Salt is a random value kept with the records, for hashing secrets
	// that options carry (passwords) before they enter a digest.
	Salt(ctx context.Context) ([]byte, error)
}

// SQLJournal is the part of the journal (*journal.Journal) that a
// package keeping its own tables in it uses.
type SQLJournal interface {
	Migrate(ctx context.Context, pkg string, migrations []string) error
	Update(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error
	Query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) *sql.Row
}

// SQLStore keeps the records in a table of the journal's file. Paths are
// BLOBs, so that names that are not UTF-8 survive. Its input column holds
// the input's real path since calq records which input a PDF belongs to;
// rows from before hold the path as walked, which sameInput also accepts.
type SQLStore struct{ j SQLJournal }

const storeSchema = `
CREATE TABLE IF NOT EXISTS convert_outputs (
	output         BLOB PRIMARY KEY, -- the PDF's absolute path
	input          BLOB NOT NULL,    -- the input's absolute path as walked
	input_sha256   TEXT NOT NULL,    -- of the bytes converted
	options        TEXT NOT NULL,    -- digest of the options; passwords enter it scrypt-hashed
	output_sha256  TEXT,             -- of the PDF placed; NULL until placed
	pending_sha256 TEXT,             -- of the PDF being placed; NULL once placed
	converted      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS convert_meta (
	name  TEXT PRIMARY KEY,
	value BLOB NOT NULL
);
`

// OpenStore creates or upgrades the store's tables in j. Version 1 of
// its migrations is the tables as calq created them before it kept
// versions, so an older journal opens as it is.
func OpenStore(ctx context.Context, j SQLJournal) (*SQLStore, error) {
	if err := j.Migrate(ctx, "convert", []string{storeSchema}); err != nil {
		return nil, fmt.Errorf("create the table of converted files: %w", err)
	}
	return &SQLStore{j: j}, nil
}

// Records implements Store.
func (s *SQLStore) Records(ctx context.Context, dir string) (map[string]Record, error) {
	lo, hi := []byte(dir+"/"), []byte(dir+"0") // '0' follows '/'
	rows, err := s.j.Query(ctx, `SELECT `+recordColumns+` FROM convert_outputs WHERE output >= ? AND output < ?`, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("read the records of converted files: %w", err)
	}
	defer rows.Close()
	recs := map[string]Record{}
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, fmt.Errorf("read the records of converted files: %w", err)
		}
		recs[r.Output] = r
	}
	return recs, rows.Err()
}

const recordColumns = `output, input, input_sha256, options, COALESCE(output_sha256, ''),
	COALESCE(pending_sha256, ''), converted`

func scanRecord(row interface{ Scan(...any) error }) (Record, error) {
	var out, in []byte
	var r Record
	var at string
	if err := row.Scan(&out, &in, &r.InputSum, &r.Options, &r.OutputSum, &r.PendingSum, &at); err != nil {
		return r, err
	}
	r.Output, r.Input = string(out), string(in)
	r.Converted, _ = time.Parse(time.RFC3339Nano, at)
	return r, nil
}

// Record implements Store.
func (s *SQLStore) Record(ctx context.Context, output string) (Record, bool, error) {
	r, err := scanRecord(s.j.QueryRow(ctx, `SELECT `+recordColumns+` FROM convert_outputs WHERE output = ?`, []byte(output)))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, false, nil
	case err != nil:
		return r, false, fmt.Errorf("read the record of %s: %w", output, err)
	}
	return r, true, nil
}

// Pending implements Store.
func (s *SQLStore) Pending(ctx context.Context, r Record) error {
	return s.j.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := journal.Exec(ctx, tx, `INSERT INTO convert_outputs
			(output, input, input_sha256, options, pending_sha256, converted) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (output) DO UPDATE SET input = excluded.input, input_sha256 = excluded.input_sha256,
			options = excluded.options, pending_sha256 = excluded.pending_sha256, converted = excluded.converted`,
			[]byte(r.Output), []byte(r.Input), r.InputSum, r.Options, r.PendingSum, r.Converted.UTC().Format(time.RFC3339Nano))
		return err
	})
}

// Placed implements Store.
func (s *SQLStore) Placed(ctx context.Context, output string) error {
	return s.j.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := journal.Exec(ctx, tx, `UPDATE convert_outputs SET output_sha256 = pending_sha256,
			pending_sha256 = NULL WHERE output = ? AND pending_sha256 IS NOT NULL`, []byte(output))
		return err
	})
}

// Salt implements Store: made once per journal, on first use.
func (s *SQLStore) Salt(ctx context.Context) ([]byte, error) {
	var salt []byte
	err := s.j.QueryRow(ctx, `SELECT value FROM convert_meta WHERE name = 'salt'`).Scan(&salt)
	if err == nil {
		return salt, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("read the salt: %w", err)
	}
	fresh := make([]byte, 16)
	rand.Read(fresh)
	err = s.j.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := journal.Exec(ctx, tx, `INSERT OR IGNORE INTO convert_meta (name, value) VALUES ('salt', ?)`, fresh); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM convert_meta WHERE name = 'salt'`).Scan(&salt)
	})
	if err != nil {
		return nil, fmt.Errorf("make the salt: %w", err)
	}
	return salt, nil
}

// memStore is a Store in memory: a run without a journal.
type memStore struct {
	mu   sync.Mutex
	recs map[string]Record
	salt []byte
}

func newMemStore() *memStore { return &memStore{recs: map[string]Record{}} }

func (m *memStore) Records(_ context.Context, dir string) (map[string]Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]Record{}
	for k, r := range m.recs {
		if len(k) > len(dir) && k[:len(dir)+1] == dir+"/" {
			out[k] = r
		}
	}
	return out, nil
}

func (m *memStore) Record(_ context.Context, output string) (Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.recs[output]
	return r, ok, nil
}

func (m *memStore) Pending(_ context.Context, r Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.recs[r.Output]; ok {
		r.OutputSum = old.OutputSum
	}
	m.recs[r.Output] = r
	return nil
}

func (m *memStore) Placed(_ context.Context, output string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.recs[output]; ok && r.PendingSum != "" {
		r.OutputSum, r.PendingSum = r.PendingSum, ""
		m.recs[output] = r
	}
	return nil
}

func (m *memStore) Salt(context.Context) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.salt == nil {
		m.salt = make([]byte, 16)
		rand.Read(m.salt)
	}
	return m.salt, nil
}

// LegacyOutputs returns the outputs below dir that a calq from before
// the provenance records converted, as its finished jobs name them, each
// with the input of the last such job: they count as calq's, so an
// upgrade does not turn every PDF into a file calq did not write. Such a
// PDF is converted again once.
func (s *SQLStore) LegacyOutputs(ctx context.Context, dir string) (map[string]string, error) {
	rows, err := s.j.Query(ctx, `SELECT json_extract(CAST(payload AS TEXT), '$.out'),
		COALESCE(json_extract(CAST(payload AS TEXT), '$.in'), '') FROM jobs
		WHERE kind IN ('convert-office', 'convert-image', 'convert-pdf') AND state = 'done'
		AND json_valid(CAST(payload AS TEXT)) ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read earlier conversions: %w", err)
	}
	defer rows.Close()
	outs := map[string]string{}
	for rows.Next() {
		var out sql.NullString
		var in string
		if err := rows.Scan(&out, &in); err != nil {
			return nil, fmt.Errorf("read earlier conversions: %w", err)
		}
		if out.Valid && len(out.String) > len(dir) && out.String[:len(dir)+1] == dir+"/" {
			outs[out.String] = in
		}
	}
	return outs, rows.Err()
}
