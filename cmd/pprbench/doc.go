// Command pprbench runs authppr from the command line: with no arguments a
// built-in workload (a generated memory graph with 1% untrusted edges,
// solved natively and on the authenticated view), and subcommands that load a
// real graph.
//
//	pprbench                      run the default workload
//	pprbench solve --graph PATH --seeds NAME[:WEIGHT],... [flags]
//	pprbench help [COMMAND]
//
// Errors go to stderr with exit status 1 (2 for a usage error); results go to
// stdout, as text or, with --json, as one JSON object.
package main
