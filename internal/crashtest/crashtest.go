package crashtest

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// KillAfterAcks re-runs the test binary on test alone with env=value in
// its environment (the child sees it and writes instead of testing), reads
// the child's acknowledgements (one integer a line on stdout) until one
// reaches until or 20 s pass, kills the child with SIGKILL and returns the
// last acknowledged number. Failing to start the child, or a child that
// acknowledged nothing past number 0, fails t.
func KillAfterAcks(t testing.TB, test, env, value string, until int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env+"="+value)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := -1
	sc := bufio.NewScanner(out)
	deadline := time.Now().Add(20 * time.Second)
	for sc.Scan() && acked < until && time.Now().Before(deadline) {
		if n, err := strconv.Atoi(sc.Text()); err == nil {
			acked = n
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if acked <= 0 {
		t.Fatalf("crashtest: the child acknowledged nothing past write 0 (last %d)", acked)
	}
	return acked
}
