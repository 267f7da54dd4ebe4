package version

import (
	"os"
	"regexp"
	"testing"
)

// TestPythonVersion checks that the Python package reports this version:
// python/authppr/_version.py holds it for a source checkout, and the
// package's import compares it with the loaded library's.
func TestPythonVersion(t *testing.T) {
	src, err := os.ReadFile("../../python/authppr/_version.py")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^__version__ = "([^"]*)"$`).FindSubmatch(src)
	if m == nil {
		t.Fatal(`python/authppr/_version.py: no line __version__ = "..."`)
	}
	if string(m[1]) != Version {
		t.Fatalf("python/authppr/_version.py says %q, internal/version says %q", m[1], Version)
	}
}

func TestVersionShape(t *testing.T) {
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(Version) {
		t.Fatalf("version %q, want MAJOR.MINOR.PATCH", Version)
	}
}
