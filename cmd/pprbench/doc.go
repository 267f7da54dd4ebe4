// Command pprbench runs authppr from the command line: with no arguments a
// built-in workload (a generated memory graph with 1% untrusted edges,
// solved natively and on the authenticated view), and subcommands that load a
// real graph.
//
//	pprbench                      run the default workload
//	pprbench solve --graph PATH --seeds NAME[:WEIGHT],... [flags]
//	pprbench help [COMMAND]
//
// Errors go to stderr with exit status 1, 2 for a usage error (a flag value
// outside what the flag takes, or a flag the other flags make meaningless:
// the message names the flag, the value and what it wants; flags.go) and 3
// when replay --policy escalate refused a selection; results go to stdout,
// as text or, with --json, as one JSON object, which never carries an
// infinity or a stand-in for one (a field without a number is null or
// left out, and a field says why).
package main
