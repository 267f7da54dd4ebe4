// Package version holds the one version number of authppr: the CLI
// (pprbench version), the C ABI (authppr_version) and the Python package
// (authppr.__version__, python/authppr/_version.py, checked against this
// constant by this package's test and by the Python build) all report it.
package version

// Version is authppr's version (semantic versioning). Change it here and
// in python/authppr/_version.py together; TestPythonVersion fails when
// they differ.
const Version = "0.1.0"
