# The package's version: internal/version.Version of the Go module, which
# the shared library reports (authppr_version). internal/version's test
# fails when the two differ, and import authppr refuses a library of
# another version.
__version__ = "0.1.0"
