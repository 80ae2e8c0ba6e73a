// ifscore-node runs one node of a dqlite cluster (Raft-replicated SQLite)
// whose SQLite connections all have the ifscore functions.
//
//	ifscore-node --db HOST:PORT --dir DIR [--join HOST:PORT,...]
//
// Without --join the node bootstraps a new cluster; with it, the node joins
// the cluster those nodes belong to. DIR keeps the node's identity, Raft log
// and snapshots: start the node again with the same --db and --dir and it
// rejoins as itself (--join is only read the first time). SIGTERM or SIGINT
// hands leadership over to another node if it can, then stops the node.
//
// Why the functions are registered this way: dqlite has no load_extension
// (its VFS cannot dlopen), and the leader runs every statement on a SQLite
// connection it opens itself. sqlite3_auto_extension puts the functions on
// every connection this process opens. It must come after go-dqlite's
// package init has set SQLite's threading mode (SQLite takes no
// configuration once initialised, and auto_extension initialises it) and
// before the node opens a database: here, at the top of main.
//
// The library is linked in statically, built with -DSQLITE_CORE (see
// mk/cluster.mk), so no dlopen is involved anywhere.
package main

/*
#include <sqlite3.h>

int sqlite3_ifscore_init(sqlite3 *, char **, const sqlite3_api_routines *);

static int ifscore_register(void) {
	return sqlite3_auto_extension((void (*)(void))sqlite3_ifscore_init);
}

// if_version() on a private in-memory connection: proves the registration
// before the node starts (and before dqlite's thread uses SQLite: go-dqlite
// puts SQLite in single-thread mode). Writes at most n bytes with the NUL.
static int ifscore_selfcheck(char *out, int n) {
	sqlite3 *db = NULL;
	sqlite3_stmt *stmt = NULL;
	int rc = sqlite3_open(":memory:", &db);
	if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "SELECT if_version()", -1, &stmt, NULL);
	if (rc == SQLITE_OK) rc = sqlite3_step(stmt) == SQLITE_ROW ? SQLITE_OK : sqlite3_errcode(db);
	if (rc == SQLITE_OK) sqlite3_snprintf(n, out, "%s", sqlite3_column_text(stmt, 0));
	else sqlite3_snprintf(n, out, "%s", db ? sqlite3_errmsg(db) : "out of memory");
	sqlite3_finalize(stmt);
	sqlite3_close(db);
	return rc;
}
*/
import "C"

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/canonical/go-dqlite/app"
	"github.com/canonical/go-dqlite/client"
)

const handoverTimeout = 5 * time.Second

func main() {
	address := flag.String("db", "", "this node's address, HOST:PORT (clients and other nodes connect here)")
	dir := flag.String("dir", "", "data directory of this node (created if missing)")
	join := flag.String("join", "", "comma-separated HOST:PORT of nodes of the cluster to join; omit to bootstrap one")
	verbose := flag.Bool("verbose", false, "log dqlite's debug and info messages too")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: ifscore-node --db HOST:PORT --dir DIR [--join HOST:PORT,...] [--verbose]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *address == "" || *dir == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*address, *dir, splitList(*join), *verbose); err != nil {
		fmt.Fprintf(os.Stderr, "ifscore-node %s: %v\n", *address, err)
		os.Exit(1)
	}
}

func run(address, dir string, join []string, verbose bool) error {
	if rc := C.ifscore_register(); rc != C.SQLITE_OK {
		return fmt.Errorf("registering the ifscore functions: SQLite error %d", int(rc))
	}
	version, err := selfCheck()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}

	// Stop on the first SIGTERM/SIGINT, whether the node is up yet or not.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	options := []app.Option{app.WithAddress(address), app.WithLogFunc(logFunc(address, verbose))}
	if len(join) > 0 {
		options = append(options, app.WithCluster(join))
	}
	node, err := app.New(dir, options...)
	if err != nil {
		return err
	}
	if err := node.Ready(ctx); err != nil && ctx.Err() == nil {
		node.Close()
		return fmt.Errorf("waiting to be part of the cluster: %w", err)
	}
	if ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "ifscore-node %s: ready (node id %x, ifscore %s)\n",
			address, node.ID(), version)
		<-ctx.Done()
	}

	fmt.Fprintf(os.Stderr, "ifscore-node %s: stopping\n", address)
	hctx, cancel := context.WithTimeout(context.Background(), handoverTimeout)
	defer cancel()
	if err := node.Handover(hctx); err != nil {
		fmt.Fprintf(os.Stderr, "ifscore-node %s: no handover (%v)\n", address, err)
	}
	return node.Close()
}

func selfCheck() (string, error) {
	var buf [256]C.char
	rc := C.ifscore_selfcheck(&buf[0], C.int(len(buf)))
	text := C.GoString(&buf[0])
	if rc != C.SQLITE_OK {
		return "", fmt.Errorf("the ifscore functions do not answer: SELECT if_version(): %s", text)
	}
	return text, nil
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func logFunc(address string, verbose bool) client.LogFunc {
	return func(level client.LogLevel, format string, args ...interface{}) {
		if level < client.LogWarn && !verbose {
			return
		}
		fmt.Fprintf(os.Stderr, "ifscore-node %s: %s: %s\n", address, level, fmt.Sprintf(format, args...))
	}
}
