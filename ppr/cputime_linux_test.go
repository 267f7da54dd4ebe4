package ppr_test

import (
	"syscall"
	"unsafe"
)

// threadCPU returns the calling thread's CPU time in nanoseconds
// (CLOCK_THREAD_CPUTIME_ID) and true; the caller locks its goroutine to
// the thread. On a shared machine it leaves out the time the thread waited
// to run, which wall time counts.
func threadCPU() (int64, bool) {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano(), errno == 0
}
