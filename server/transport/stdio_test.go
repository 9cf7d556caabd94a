package transport

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type nopState struct{}

func (nopState) Bind(ctx context.Context) context.Context { return ctx }
func (nopState) Close()                                   {}

// countingReader counts the bytes read from it.
type countingReader struct {
	r  io.Reader
	mu sync.Mutex
	n  int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.mu.Lock()
	c.n += n
	c.mu.Unlock()
	return n, err
}

func (c *countingReader) read() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// TestStdioReadAheadBounded: while a call runs, the stdio session reads
// ahead only what fits its budget (--max-message-bytes, at least 1 MiB):
// with the first call blocked and messages of 400 KiB behind it, it reads
// two of them and holds a third in hand, reading no further until the
// call returns; then every message is answered, in order.
func TestStdioReadAheadBounded(t *testing.T) {
	t.Parallel()
	started, release := make(chan struct{}), make(chan struct{})
	tr := New(Config{
		Tools: []Tool{
			{Tool: mcp.NewTool("block"), Handler: func(context.Context, Call) (*mcp.CallToolResult, error) {
				close(started)
				<-release
				return mcp.NewToolResultText("released"), nil
			}},
			{Tool: mcp.NewTool("echo"), Handler: func(context.Context, Call) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("echo"), nil
			}},
		},
		NewSession:      func() Session { return nopState{} },
		MaxMessageBytes: 1 << 20,
	})
	full := make(chan struct{}, 1)
	tr.readAheadFull = func() {
		select {
		case full <- struct{}{}:
		default:
		}
	}
	const size, count = 400 << 10, 8
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"block"}}` + "\n")
	for i := 1; i <= count; i++ {
		msg := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"echo"}}`
		in.WriteString(strings.Repeat(" ", size-len(msg)) + msg + "\n")
	}
	r := &countingReader{r: strings.NewReader(in.String())}
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- tr.ServeStdio(context.Background(), r, outW); outW.Close() }()
	<-started
	<-full
	// Read: the blocked call, two messages queued, the third in hand, and
	// at most one buffer of the reader beyond.
	got := r.read()
	assert.GreaterOrEqual(t, got, 3*size)
	assert.Less(t, got, 4*size+64<<10+100, "read %d bytes ahead of a blocked call", got)
	close(release)
	answers := bufio.NewScanner(outR)
	answers.Buffer(nil, 1<<20)
	for i := 0; i <= count; i++ {
		require.True(t, answers.Scan())
		assert.Contains(t, answers.Text(), `"id":`+strconv.Itoa(i)+`,`)
	}
	assert.False(t, answers.Scan())
	require.NoError(t, <-served)
	assert.Equal(t, in.Len(), r.read())
}

// TestStdioCancelWhileRunning: a call that runs is cancelled by a
// notifications/cancelled read while it runs, and a call queued behind it
// that a cancellation names starts with its context ended; both are
// answered, in order.
func TestStdioCancelWhileRunning(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	tr := New(Config{
		Tools: []Tool{{Tool: mcp.NewTool("wait"), Handler: func(ctx context.Context, _ Call) (*mcp.CallToolResult, error) {
			select {
			case started <- struct{}{}:
			default: // a call that starts cancelled reports nothing
			}
			<-ctx.Done()
			return mcp.NewToolResultText("cancelled: " + context.Cause(ctx).Error()), nil
		}}},
		NewSession:      func() Session { return nopState{} },
		MaxMessageBytes: 1 << 20,
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- tr.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	write := func(line string) {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
	}
	write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}`)
	<-started
	write(`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"wait"}}`)
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"two"}}`)
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.0}}`)
	answers := bufio.NewScanner(outR)
	for _, id := range []string{`1`, `"two"`} {
		require.True(t, answers.Scan())
		assert.Contains(t, answers.Text(), `"id":`+id+`,`)
		assert.Contains(t, answers.Text(), "cancelled: context canceled")
	}
	require.NoError(t, inW.Close())
	assert.False(t, answers.Scan())
	require.NoError(t, <-served)
}
