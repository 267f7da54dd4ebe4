package main

import (
	"syscall"
	"unsafe"
)

// threadCPU returns the calling thread's CPU time in nanoseconds
// (CLOCK_THREAD_CPUTIME_ID); the caller locks its goroutine to the thread.
func threadCPU() int64 {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}
