package pgqueue

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"calq/internal/dburl"
	"calq/internal/pgdb"
)

// Ping connects to the database at url as Open does and returns the
// server's version, creating nothing: for calq doctor. Its errors name
// the database without its password.
func Ping(ctx context.Context, url string) (string, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return "", dburl.Wrap("open", url, err)
	}
	cfg.ConnectTimeout = 10 * time.Second
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return "", pgdb.OpenError(url, err) // one line, with a hint
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var version string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&version); err != nil {
		return "", dburl.Wrap("query", url, err)
	}
	return version, nil
}
