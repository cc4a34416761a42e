package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"calq/convert"
	"calq/internal/pgtest"
)

// A queue writer is whoever can write the shared queue's tables: it can
// forge any job, result and blob there, but reads no file of a submitter
// or a worker through them. These tests play one, with SQL.

// fakeWorker registers a live worker that takes the conversions of
// shares, so that a submitter with -j 0 submits, and then leaves the jobs
// to whoever records their results.
func fakeWorker(t *testing.T, c *pgx.Conn, shares ...string) {
	t.Helper()
	if out, err := calqCmd(t, "worker", "--status", "--db", c.Config().ConnString()).CombinedOutput(); err != nil {
		t.Fatalf("calq worker --status (to lay out the tables): %v\n%s", err, out)
	}
	if shares == nil {
		shares = []string{}
	}
	_, err := c.Exec(context.Background(), `INSERT INTO workers (id, host, pid, name, kinds, slots, shares)
		VALUES ('forger:1:x', 'forger', 1, 'forger', '{convert-office,convert-image,convert-pdf}', 1, $1)
		ON CONFLICT (id) DO UPDATE SET heartbeat = now()`, shares)
	if err != nil {
		t.Fatal(err)
	}
}

// forgeResult waits for the batch's one queued job and records it done
// with result, as the queue writer would; it returns the job's key.
func forgeResult(t *testing.T, c *pgx.Conn, url, batchLike string, result func(key string) string) string {
	t.Helper()
	waitSQL(t, url, "1", `SELECT count(*)::text FROM jobs WHERE state = 'queued' AND batch LIKE $1`, batchLike)
	var id int64
	var key string
	ctx := context.Background()
	if err := c.QueryRow(ctx, `SELECT id, key FROM jobs WHERE state = 'queued' AND batch LIKE $1`, batchLike).Scan(&id, &key); err != nil {
		t.Fatal(err)
	}
	err := pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE jobs SET state = 'done', attempts = 1, started = now(), finished = now(),
			ran_on = 'forger' WHERE id = $1`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO attempts (job_id, attempt, worker, state, final, started, result)
			VALUES ($1, 1, 'forger', 'done', true, now(), $2)`, id, []byte(result(key))); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify('calq_attempts', '')`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// putBlob stores data as the blob digest, whatever its content's digest.
func putBlob(t *testing.T, c *pgx.Conn, digest string, data []byte) {
	t.Helper()
	if _, err := c.Exec(context.Background(), `INSERT INTO blobs (digest, seq, data) VALUES ($1, 0, $2)`, digest, data); err != nil {
		t.Fatal(err)
	}
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// pdfName is the name a worker gives the PDF of the job key in the
// share's calq directory.
func pdfName(key string) string { return sum([]byte(key))[:24] + ".pdf" }

// TestHostileForgedResult: a submitter takes a result the queue writer
// forged only when it is what this job's worker would have made. A path
// to another file on the share, a symlink in calq's own directory to a
// PDF outside, a path that climbs out, a blob that is no PDF, a blob
// whose content is not what its digest says: each is refused, the file
// fails, nothing is copied to the output, and nothing is deleted.
func TestHostileForgedResult(t *testing.T) {
	srv := pgtest.Start(t)
	c := pgConn(t, srv.URL)
	root, outside := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(root, "keep", "victim.txt"), "the submitter's notes\n")
	mustWrite(t, filepath.Join(outside, "private.pdf"), "%PDF-1.4 another user's\n")
	mustWrite(t, filepath.Join(root, "in", "doc.png"), string(mustRead(t, filepath.Join(repoTestdata, "convert", "samples", "testPNG.png"))))
	share, err := convert.ShareID(root)
	if err != nil {
		t.Fatal(err)
	}
	fakeWorker(t, c, share)
	text, fakePDF := []byte("not a PDF at all\n"), []byte("%PDF-1.4 forged\n")
	putBlob(t, c, sum(text), text)
	putBlob(t, c, sum([]byte("%PDF-1.4 real\n")), fakePDF)
	tests := []struct {
		name   string
		shared bool
		result func(key string) string
		want   string
	}{
		{"another file on the share", true, func(string) string { return `{"path":"keep/victim.txt"}` }, "is not this job's"},
		{"climbs out", true, func(string) string { return `{"path":"../` + filepath.Base(outside) + `/private.pdf"}` }, "is not this job's"},
		{"symlink in calq's directory", true, func(key string) string {
			name := pdfName(key)
			if err := os.Symlink(filepath.Join(outside, "private.pdf"), filepath.Join(root, ".calq-shared", name)); err != nil {
				t.Fatal(err)
			}
			return `{"path":".calq-shared/` + name + `"}`
		}, "symlink"},
		{"blob that is no PDF", false, func(string) string { return `{"pdf":"` + sum(text) + `"}` }, "is not a PDF"},
		{"blob unlike its digest", false, func(string) string { return `{"pdf":"` + sum([]byte("%PDF-1.4 real\n")) + `"}` }, "content has digest"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			out := filepath.Join(tmp, "out")
			args := []string{"convert", "-j", "0", "--db", srv.URL, "-o", out, "--label", "forged" + string(rune('a'+i))}
			if tt.shared {
				args = append(args, "--shared-root", root)
			}
			cmd := calqCmd(t, append(args, filepath.Join(root, "in", "doc.png"))...)
			cmd.Env = append(cmd.Env, convertEnv(tmp)...)
			cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
			var log lockedBuilder
			cmd.Stdout, cmd.Stderr = &log, &log
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			fakeWorker(t, c, share)
			forgeResult(t, c, srv.URL, "convert:forged"+string(rune('a'+i))+":%", tt.result)
			cmd.Wait()
			got := log.String()
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(got, "0 converted, 0 skipped, 1 failed") ||
				!strings.Contains(got, tt.want) {
				t.Errorf("exit %d, want 1 with the file failed for %q:\n%s", code, tt.want, got)
			}
			if left, _ := os.ReadDir(out); len(left) != 0 {
				t.Errorf("%v in the output directory, want nothing", left)
			}
			for _, f := range []string{filepath.Join(root, "keep", "victim.txt"), filepath.Join(outside, "private.pdf")} {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("%s: %v, want it kept", f, err)
				}
			}
		})
	}
}

func mustWrite(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHostileForgedInput: a worker reads a job's input on the share only
// below its root and through no symlink, whatever path and digest the
// queue writer puts in the job: a PDF outside the share, reached through
// a symlink or by climbing, is never converted nor stored, and the job
// fails for good.
func TestHostileForgedInput(t *testing.T) {
	srv := pgtest.Start(t)
	c := pgConn(t, srv.URL)
	root, outside := t.TempDir(), t.TempDir()
	secret := mustRead(t, filepath.Join(repoTestdata, "convert", "samples", "pages_3.pdf"))
	mustWrite(t, filepath.Join(outside, "secret.pdf"), string(secret))
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.pdf"), filepath.Join(root, "file.pdf")); err != nil {
		t.Fatal(err)
	}
	share, err := convert.ShareID(root)
	if err != nil {
		t.Fatal(err)
	}
	startWorker(t, srv.URL, "--kinds", "convert", "--shared-root", root)
	tests := []struct{ key, path, want string }{
		{"dir-link", "link/secret.pdf", "symlink"},
		{"file-link", "file.pdf", "symlink"},
		{"climb", "../" + filepath.Base(outside) + "/secret.pdf", "not below the shared root"},
	}
	ctx := context.Background()
	for _, tt := range tests {
		payload, _ := json.Marshal(map[string]any{"source": "x.pdf", "name": "x.pdf", "input": sum(secret),
			"path": tt.path, "share": share, "kind": 3, "timeout_seconds": 60})
		if _, err := c.Exec(ctx, `INSERT INTO jobs (key, kind, payload, class, tag, share)
			VALUES ($1, 'convert-pdf', $2, 0, 0, $3)`, tt.key, payload, share); err != nil {
			t.Fatal(err)
		}
		c.Exec(ctx, `SELECT pg_notify('calq_jobs', '')`)
	}
	for _, tt := range tests {
		waitSQL(t, srv.URL, "failed", `SELECT state FROM jobs WHERE key = $1`, tt.key)
		if e := pgStrings(t, c, `SELECT error || ' ' || reason FROM jobs WHERE key = $1`, tt.key); !strings.Contains(e[0], tt.want) ||
			!strings.Contains(e[0], "permanent") {
			t.Errorf("job %s (%s): %q, want %q, permanent", tt.key, tt.path, e[0], tt.want)
		}
	}
	if n := pgStrings(t, c, `SELECT count(*)::text FROM blobs`); n[0] != "0" {
		t.Errorf("%s blobs in the database, want none", n[0])
	}
	if r := pgStrings(t, c, `SELECT count(*)::text FROM attempts WHERE result IS NOT NULL`); r[0] != "0" {
		t.Errorf("%s results recorded, want none", r[0])
	}
	if left, _ := os.ReadDir(filepath.Join(root, ".calq-shared")); len(left) != 1 || left[0].Name() != "id" {
		t.Errorf("%v in the share's calq directory, want only its id", left)
	}
}
