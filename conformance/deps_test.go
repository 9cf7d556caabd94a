package conformance

// The scripts run a binary that TestMain builds, which go test cannot see.
// Importing the server makes its sources part of this test's inputs, so a
// change to them invalidates cached results.
import _ "github.com/loom-results/loom-results/server"
