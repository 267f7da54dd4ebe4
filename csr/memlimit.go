package csr

import (
	"bufio"
	"bytes"
	"io/fs"
	"math"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fallbackMaxMemory is defaultMaxMemory where the available memory cannot
// be read (systems other than Linux, or /proc not mounted): 4 GiB, which a
// machine that runs a graph store of any size has.
const fallbackMaxMemory = 4 << 30

// defaultMaxMemory is the memory limit of a build that sets none: half the
// memory available to the process now, on Linux the least of
//
//   - MemAvailable in /proc/meminfo (the kernel's estimate of what can be
//     allocated without swapping), and
//   - for each cgroup (v1 or v2) the process is in, and each ancestor, its
//     memory limit less its working set (usage less inactive file cache,
//     which the kernel reclaims first; as container runtimes count it);
//
// elsewhere fallbackMaxMemory. Half, because the Go collector lets the
// heap grow to about twice the live bytes between collections (GOGC=100):
// a build whose live peak is within the limit stays within what is
// available. The available memory changes, so the files are read again
// when the last reading is a second old (a reading takes up to a
// millisecond in a sandbox; every Builder and FromIDs call asks).
func defaultMaxMemory() int64 {
	if runtime.GOOS != "linux" {
		return fallbackMaxMemory
	}
	defaultMemory.Lock()
	defer defaultMemory.Unlock()
	if defaultMemory.at.IsZero() || time.Since(defaultMemory.at) >= time.Second {
		defaultMemory.bytes = fallbackMaxMemory
		if avail, ok := availableMemory(os.DirFS("/")); ok {
			defaultMemory.bytes = avail / 2
		}
		defaultMemory.at = time.Now()
	}
	return defaultMemory.bytes
}

// defaultMemory is defaultMaxMemory's last reading.
var defaultMemory struct {
	sync.Mutex
	at    time.Time
	bytes int64
}

// availableMemory returns the memory available to the process (see
// defaultMaxMemory) from a file system rooted at "/", and whether any
// source could be read.
func availableMemory(fsys fs.FS) (int64, bool) {
	avail, ok := int64(math.MaxInt64), false
	if b, err := fs.ReadFile(fsys, "proc/meminfo"); err == nil {
		if kb, found := statField(b, "MemAvailable:"); found {
			avail, ok = min(avail, kb*1024), true
		}
	}
	cg, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return avail, ok
	}
	for _, line := range strings.Split(string(cg), "\n") {
		// "hierarchy-id:controllers:path"; v2's controllers are empty.
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		var dir, limitFile, usageFile, inactive string
		switch {
		case f[0] == "0" && f[1] == "":
			dir, limitFile, usageFile, inactive = "sys/fs/cgroup", "memory.max", "memory.current", "inactive_file"
		case hasController(f[1], "memory"):
			dir, limitFile, usageFile, inactive = "sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"
		default:
			continue
		}
		if a, found := cgroupAvailable(fsys, dir, f[2], limitFile, usageFile, inactive); found {
			avail, ok = min(avail, a), true
		}
	}
	return avail, ok
}

// hasController reports whether a cgroup v1 controller list names c.
func hasController(list, c string) bool {
	for _, x := range strings.Split(list, ",") {
		if x == c {
			return true
		}
	}
	return false
}

// cgroupAvailable returns the least (limit - working set) over the cgroup
// at rel under mount and its ancestors that set a limit, and whether one
// did. A cgroup namespace may hide the path (the process sees its own
// cgroup as the mount's root): the mount's own files then stand for it.
func cgroupAvailable(fsys fs.FS, mount, rel, limitFile, usageFile, inactiveKey string) (int64, bool) {
	avail, found := int64(math.MaxInt64), false
	dir := path.Join(mount, rel)
	if _, err := fs.Stat(fsys, dir); err != nil {
		dir = mount
	}
	for {
		limit, ok := readNumber(fsys, path.Join(dir, limitFile))
		// v1 says "no limit" with a number near 2^63; v2 with "max".
		if ok && limit < 1<<62 {
			usage, _ := readNumber(fsys, path.Join(dir, usageFile))
			if stat, err := fs.ReadFile(fsys, path.Join(dir, "memory.stat")); err == nil {
				if cache, ok := statField(stat, inactiveKey); ok && cache <= usage {
					usage -= cache
				}
			}
			avail, found = min(avail, max(0, limit-usage)), true
		}
		if dir == mount || dir == "." || dir == "/" {
			return avail, found
		}
		dir = path.Dir(dir)
	}
}

// readNumber reads a file holding one decimal number.
func readNumber(fsys fs.FS, name string) (int64, bool) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	return v, err == nil
}

// statField returns the number after key on the line that starts with it
// ("MemAvailable:   24312456 kB", "inactive_file 1234").
func statField(b []byte, key string) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == key {
			v, err := strconv.ParseInt(f[1], 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}
