// Package pgtest runs a throwaway PostgreSQL server for tests: one cluster
// per test binary (started on first use, stopped by TestMain) and a fresh
// database per test.
//
//	var pg pgtest.Shared
//
//	func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		url := pg.Database(t) // skips (or fails under CI) without PostgreSQL
//		…
//	}
//
// The cluster lives in its own temporary directory that the server's user
// can enter (never under a 0700 t.TempDir()), listens on a free loopback
// port only, and trades durability for speed (fsync off): it holds nothing
// worth keeping. When the test runs as root the server runs as the
// unprivileged "postgres" user, since PostgreSQL refuses to run as root.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// BinDir is where Debian's postgresql-15 package puts the server binaries.
const BinDir = "/usr/lib/postgresql/15/bin"

// ErrNoBinaries is Start's error when initdb or postgres is missing.
var ErrNoBinaries = errors.New("PostgreSQL 15 server binaries not found in " + BinDir + " (apt-get install postgresql)")

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	dir  string // removed by Stop
	port int
	cmd  *exec.Cmd
	log  *bytes.Buffer
	// exited is closed when the server process has been waited for.
	exited  chan struct{}
	waitErr error

	mu    sync.Mutex // guards admin and n
	admin *pgx.Conn
	n     int
}

// Options tune Start.
type Options struct {
	// Durable keeps PostgreSQL's default durability (fsync, synchronous
	// commit, full page writes), for benchmarks whose numbers must mean
	// what a real server would do. Tests leave it off: faster.
	Durable bool
}

// Start creates a cluster with initdb in a new temporary directory and
// starts its server on a free loopback port. Stop it when done.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	for _, b := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(BinDir, b)); err != nil {
			return nil, ErrNoBinaries
		}
	}
	cred, uid, gid, err := serverUser()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "switchboard-pgtest-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	c := &Cluster{dir: dir, log: new(bytes.Buffer), exited: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			_ = os.RemoveAll(dir)
		}
	}()
	if cred != nil {
		// The server user must be able to enter the directory and create
		// its data directory (0700, its own) inside.
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, fmt.Errorf("pgtest: chown %s: %w", dir, err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(BinDir, "initdb"),
		"-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	// A port found free can be taken before the server binds it: retry.
	for attempt := 0; ; attempt++ {
		err := c.startServer(ctx, data, cred, opts.Durable)
		if err == nil {
			break
		}
		if attempt == 4 {
			return nil, err
		}
	}
	ok = true
	return c, nil
}

// serverUser returns the credentials to run the server with: nil when the
// test is not root, else those of the "postgres" user.
func serverUser() (*syscall.Credential, int, int, error) {
	if os.Geteuid() != 0 {
		return nil, 0, 0, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, 0, 0, fmt.Errorf("pgtest: running as root, and PostgreSQL refuses to run as root, but there is no postgres user to run it as: %w", err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return nil, 0, 0, fmt.Errorf("pgtest: postgres user: %w", err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, uid, gid, nil
}

// startServer starts postgres on a free port and waits until it accepts
// connections.
func (c *Cluster) startServer(ctx context.Context, data string, cred *syscall.Credential, durable bool) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	c.port = port
	c.log.Reset()
	c.exited = make(chan struct{})
	// Not CommandContext: the server outlives Start's ctx; Stop ends it.
	args := []string{"-D", data,
		"-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=" + c.dir,
		"-c", "max_connections=300",
		"-c", "shared_buffers=128MB",
		"-c", "log_min_messages=warning",
	}
	if !durable {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	cmd := exec.Command(filepath.Join(BinDir, "postgres"), args...)
	cmd.Dir = c.dir
	cmd.Stdout, cmd.Stderr = c.log, c.log
	// Pdeathsig: a test binary that dies (a timeout panic, kill -9) takes
	// its server with it instead of leaving it running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	c.cmd = cmd
	exited := c.exited
	go func() { // owned by the server process: ends when it exits
		c.waitErr = cmd.Wait()
		close(exited)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err == nil {
			c.admin = conn
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("pgtest: postgres exited while starting (%v):\n%s", c.waitErr, c.log.String())
		case <-ctx.Done():
			c.kill()
			return ctx.Err()
		case <-time.After(20 * time.Millisecond): // polling the server's readiness, not synchronizing goroutines
		}
		if time.Now().After(deadline) {
			c.kill()
			return fmt.Errorf("pgtest: postgres did not accept connections within 30s: %v\n%s", err, c.log.String())
		}
	}
}

func (c *Cluster) kill() {
	_ = c.cmd.Process.Kill()
	<-c.exited
}

// freePort returns a TCP port that was free on 127.0.0.1 a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Port is the server's TCP port on 127.0.0.1.
func (c *Cluster) Port() int { return c.port }

// URL returns the connection URL of database db.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// CreateDatabase creates a new, empty database and returns its URL.
func (c *Cluster) CreateDatabase(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.admin == nil {
		return "", errors.New("pgtest: cluster stopped")
	}
	c.n++
	name := fmt.Sprintf("t%04d", c.n)
	// template0 holds nothing a test could have added to template1.
	if _, err := c.admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		return "", fmt.Errorf("pgtest: create database %s: %w", name, err)
	}
	return c.URL(name), nil
}

// Stop shuts the server down (fast shutdown: open sessions are ended) and
// removes the cluster's directory.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	if c.admin != nil {
		_ = c.admin.Close(context.Background())
		c.admin = nil
	}
	c.mu.Unlock()
	var errs []error
	if c.cmd != nil {
		_ = c.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-c.exited:
		case <-time.After(30 * time.Second):
			c.kill()
			errs = append(errs, fmt.Errorf("pgtest: postgres did not stop within 30s; killed\n%s", c.log.String()))
		}
	}
	if err := os.RemoveAll(c.dir); err != nil {
		errs = append(errs, fmt.Errorf("pgtest: %w", err))
	}
	return errors.Join(errs...)
}
