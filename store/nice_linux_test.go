package store

import (
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLowerThreadPriority(t *testing.T) {
	got := make(chan int, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		if err := lowerThreadPriority(7); err != nil {
			got <- -1
			return
		}
		p, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
		if err != nil {
			got <- -1
			return
		}
		got <- 20 - p // the raw syscall returns 20 - nice
	}()
	require.Equal(t, 7, <-got)
	// The test's own thread is untouched.
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	require.NoError(t, err)
	require.NotEqual(t, 7, 20-p)
}
