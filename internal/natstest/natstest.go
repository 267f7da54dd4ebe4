// Package natstest runs real NATS servers with JetStream inside a test
// process, on 127.0.0.1 and ports the kernel picked: one server or a
// cluster, users with per-subject permissions, servers stopped and
// restarted on the same ports and storage. Config writes the configuration
// file, which nats-server -c reads as well.
package natstest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// User is a NATS user of the test account. Publish and Subscribe nil mean
// no restriction (JetStream API rights included); otherwise the user may
// only publish and subscribe on the subjects listed.
type User struct {
	Name, Password     string
	Publish, Subscribe []string
}

// Writer returns the user of a principal that may publish only on subject
// and receive its acknowledgements on its reply inbox: no JetStream API
// right.
func Writer(name, password, subject string) User {
	return User{Name: name, Password: password, Publish: []string{subject}, Subscribe: []string{"_INBOX.>"}}
}

// Node is one server's settings.
type Node struct {
	Name        string
	Port        int // client port
	ClusterPort int // 0: a single server
	Routes      []int
	StoreDir    string
}

// Config returns the configuration file of node with users.
func Config(n Node, users []User) string {
	var b strings.Builder
	fmt.Fprintf(&b, "server_name: %s\nlisten: 127.0.0.1:%d\n", n.Name, n.Port)
	fmt.Fprintf(&b, "jetstream {\n  store_dir: %q\n  max_memory_store: 256MB\n  max_file_store: 8GB\n}\n", n.StoreDir)
	if n.ClusterPort != 0 {
		fmt.Fprintf(&b, "cluster {\n  name: authppr\n  listen: 127.0.0.1:%d\n  routes: [", n.ClusterPort)
		for i, r := range n.Routes {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "nats-route://127.0.0.1:%d", r)
		}
		b.WriteString("]\n}\n")
	}
	b.WriteString("accounts {\n  MEMORY {\n    jetstream: enabled\n    users: [\n")
	for _, u := range users {
		fmt.Fprintf(&b, "      {user: %q, password: %q", u.Name, u.Password)
		if u.Publish != nil || u.Subscribe != nil {
			fmt.Fprintf(&b, ", permissions: {publish: {allow: %s}, subscribe: {allow: %s}}", list(u.Publish), list(u.Subscribe))
		}
		b.WriteString("}\n")
	}
	b.WriteString("    ]\n  }\n}\n")
	return b.String()
}

func list(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// FreePorts returns n ports free on 127.0.0.1 now.
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// Cluster is a set of running servers (one, or a JetStream cluster).
type Cluster struct {
	t       testing.TB
	configs []string
	Servers []*server.Server // nil while stopped
}

// Start starts n servers (n 1: a single server; n >= 3: a cluster) with
// users; they are shut down when the test ends.
func Start(t testing.TB, n int, users []User) *Cluster {
	t.Helper()
	ports := FreePorts(t, 2*n)
	dir := t.TempDir()
	c := &Cluster{t: t, Servers: make([]*server.Server, n)}
	for i := range n {
		node := Node{Name: fmt.Sprintf("s%d", i+1), Port: ports[i], StoreDir: filepath.Join(dir, fmt.Sprintf("s%d", i+1))}
		if n > 1 {
			node.ClusterPort = ports[n+i]
			for j := range n {
				if j != i {
					node.Routes = append(node.Routes, ports[n+j])
				}
			}
		}
		path := filepath.Join(dir, node.Name+".conf")
		if err := os.WriteFile(path, []byte(Config(node, users)), 0o600); err != nil {
			t.Fatal(err)
		}
		c.configs = append(c.configs, path)
	}
	for i := range n {
		c.start(i, false)
	}
	for i := range n {
		if !c.Servers[i].ReadyForConnections(10 * time.Second) {
			t.Fatalf("natstest: server %d not ready", i+1)
		}
	}
	t.Cleanup(func() {
		for i := range c.Servers {
			c.Stop(i)
		}
	})
	return c
}

func (c *Cluster) start(i int, wait bool) {
	opts, err := server.ProcessConfigFile(c.configs[i])
	if err != nil {
		c.t.Fatalf("natstest: %v", err)
	}
	opts.NoSigs = true
	opts.NoLog = os.Getenv("NATSTEST_LOG") == ""
	s, err := server.NewServer(opts)
	if err != nil {
		c.t.Fatalf("natstest: server %d: %v", i+1, err)
	}
	if !opts.NoLog {
		s.ConfigureLogger()
	}
	go s.Start()
	c.Servers[i] = s
	if wait && !s.ReadyForConnections(10*time.Second) {
		c.t.Fatalf("natstest: server %d not ready", i+1)
	}
}

// URLs returns the client URLs of every server, comma-separated.
func (c *Cluster) URLs() string {
	var urls []string
	for _, path := range c.configs {
		opts, err := server.ProcessConfigFile(path)
		if err != nil {
			c.t.Fatal(err)
		}
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", opts.Port))
	}
	return strings.Join(urls, ",")
}

// Stop shuts server i down (its storage stays for Restart).
func (c *Cluster) Stop(i int) {
	if s := c.Servers[i]; s != nil {
		s.Shutdown()
		s.WaitForShutdown()
		c.Servers[i] = nil
	}
}

// Restart starts server i again on its ports and storage.
func (c *Cluster) Restart(i int) {
	c.Stop(i)
	c.start(i, true)
}
