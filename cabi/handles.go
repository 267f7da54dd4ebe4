package main

import (
	"fmt"
	"sync"
)

// handleTable maps the integer handles C holds to the Go objects they name.
// Handles are never reused within a process, so a stale handle is an error,
// never another object.
type handleTable struct {
	mu   sync.Mutex
	next uint64
	objs map[uint64]any
}

var handles = handleTable{objs: make(map[uint64]any)}

// put stores obj and returns its handle (never 0).
func (t *handleTable) put(obj any) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	t.objs[t.next] = obj
	return t.next
}

// get returns the object behind h if it has type T.
func get[T any](t *handleTable, h uint64, kind string) (T, error) {
	t.mu.Lock()
	obj, ok := t.objs[h]
	t.mu.Unlock()
	return as[T](obj, ok, h, kind, "")
}

// free drops h if it names a T.
func free[T any](t *handleTable, h uint64, kind string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	obj, ok := t.objs[h]
	if _, err := as[T](obj, ok, h, kind, "free "); err != nil {
		return err
	}
	delete(t.objs, h)
	return nil
}

// as checks that a looked-up object exists and is a T.
func as[T any](obj any, ok bool, h uint64, kind, verb string) (T, error) {
	v, isT := obj.(T)
	switch {
	case !ok:
		return v, fmt.Errorf("cabi: %s%s handle %d: unknown (freed or never created)", verb, kind, h)
	case !isT:
		return v, fmt.Errorf("cabi: %s%s handle %d: not a %s handle", verb, kind, h, kind)
	}
	return v, nil
}

// live returns the number of handles held (for leak checks in tests).
func (t *handleTable) live() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.objs)
}
