package main

import (
	"fmt"
	"io"
	"os"
)

// greet writes one line to stderr when standard input is a terminal, that
// is when a person ran the server by hand rather than a client starting
// it (SPEC section 2): a server that waits in silence looks hung, and what
// a person types is not JSON-RPC. A client's pipe gets nothing.
func greet(stdin io.Reader, stderr io.Writer, root string) {
	f, ok := stdin.(*os.File)
	if !ok || !isTerminal(f.Fd()) {
		return
	}
	fmt.Fprintf(stderr, "loom-results: serving %s over stdio: waiting for an MCP client to start it "+
		"(the README's \"Using it from an agent\" shows how to connect one); Ctrl-C quits\n", root)
}
