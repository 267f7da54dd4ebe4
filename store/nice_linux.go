package store

import "syscall"

// lowerThreadPriority sets the nice value of the calling OS thread (Linux
// keeps a priority per thread). The caller has locked its goroutine to the
// thread and must never unlock it: the thread then exits with the
// goroutine, and no other goroutine ever runs at the lowered priority
// (raising it back needs a privilege most processes lack).
func lowerThreadPriority(nice int) error {
	return syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice)
}
