package crashtest

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// RunChild re-runs the test binary on test alone with env=value in its
// environment (the child sees it and runs the part that may crash) and
// returns the child's combined output once it exits. A child that does
// not pass test (a fault kills it, the test fails, or the test is not
// found) fails t with that output; so does failing to start it.
func RunChild(t testing.TB, test, env, value string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+value)
	out, err := cmd.CombinedOutput()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatalf("crashtest: start the child: %v", err)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("crashtest: the child running %s did not pass (%v):\n%s", test, err, out)
	}
	return string(out)
}

// WaitUnmapped runs the garbage collector until no mapping of path is
// left in /proc/self/maps (a cleanup that unmaps runs after the GC found
// its object unreachable, on another goroutine), and fails t after 10 s.
// Where /proc/self/maps is absent it runs the GC a few times, with pauses
// for the cleanups, and returns.
func WaitUnmapped(t testing.TB, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		runtime.GC()
		mapped, known := Mapped(path)
		if !known && i == 5 || known && !mapped {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("crashtest: %s is still mapped after 10 s of garbage collection", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Mapped reports whether path is mapped into this process, deleted since
// or not; known is false where /proc/self/maps is absent.
func Mapped(path string) (mapped, known bool) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return false, false
	}
	return mapsHave(string(maps), path), true
}

// mapsHave reports whether a line of maps (the text of /proc/self/maps)
// maps path, deleted since or not.
func mapsHave(maps, path string) bool {
	for line := range strings.Lines(maps) {
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), " (deleted)")
		if strings.HasSuffix(line, " "+path) {
			return true
		}
	}
	return false
}
