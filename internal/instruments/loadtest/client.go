package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

const (
	sessionHeader   = "Mcp-Session-Id"
	protocolVersion = "2025-11-25"
)

// client is one MCP session over Streamable HTTP: plain JSON-RPC POSTs with
// the session header.
type client struct {
	hc      *http.Client
	url     string
	session string
	nextID  int
}

// rpcResponse is a JSON-RPC answer.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// toolResult is a tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Structured answer `json:"structuredContent"`
	IsError    bool   `json:"isError"`
}

// text is the result's first text content, or "".
func (r *toolResult) text() string {
	for _, c := range r.Content {
		if c.Type == "text" {
			return c.Text
		}
	}
	return ""
}

// answer is the structured content of every tool this program calls, the
// union of their fields (SPEC sections 5 and 8).
type answer struct {
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Budget *budget `json:"budget"`

	// Selections (get_lines, get_range, get_json) and find.
	Result string `json:"result"`
	SHA256 string `json:"sha256"`
	Text   string `json:"text"`

	// find.
	Matches []struct {
		Line   int    `json:"line"`
		Anchor string `json:"anchor"`
		Text   string `json:"text"`
		Cut    bool   `json:"cut"`
	} `json:"matches"`
	Truncated bool `json:"truncated"`

	// find and list_results.
	Total int `json:"total"`

	// list_results, and inspect's descriptors.
	Results []descriptor `json:"results"`
	Next    *int         `json:"next"`

	// begin_step.
	Step int64 `json:"step"`
}

// descriptor is a result descriptor, or an inspect error entry.
type descriptor struct {
	ID     *string `json:"id"`
	SHA256 string  `json:"sha256"`
	Bytes  int     `json:"bytes"`
	Lines  int     `json:"lines"`
	Source struct {
		Path string `json:"path"`
	} `json:"source"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// budget is a lookup answer's budget (SPEC section 6).
type budget struct {
	Step        int64 `json:"step"`
	LookupsUsed int64 `json:"lookups_used"`
	LookupsLeft int64 `json:"lookups_left"`
	BytesUsed   int64 `json:"bytes_used"`
	BytesLeft   int64 `json:"bytes_left"`
	Refused     bool  `json:"refused"`
}

// post sends one JSON-RPC message and returns the HTTP status, the session
// header and the body.
func (c *client) post(ctx context.Context, msg any) (int, string, []byte, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return 0, "", nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set(sessionHeader, c.session)
		req.Header.Set("MCP-Protocol-Version", protocolVersion)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get(sessionHeader), b, err
}

// request sends a JSON-RPC request and decodes its 200 answer.
func (c *client) request(ctx context.Context, method string, params any) (*rpcResponse, error) {
	c.nextID++
	id := c.nextID
	status, _, body, err := c.post(ctx, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d: %.200s", method, status, body)
	}
	var resp rpcResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("%s: answer is not JSON-RPC: %v: %.200s", method, err, body)
	}
	if string(resp.ID) != strconv.Itoa(id) {
		return nil, fmt.Errorf("%s: answer has id %s, want %d", method, resp.ID, id)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: JSON-RPC error %d: %s", method, resp.Error.Code, resp.Error.Message)
	}
	return &resp, nil
}

// initialize starts the session: initialize, then
// notifications/initialized.
func (c *client) initialize(ctx context.Context) error {
	params := map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "loom-load", "version": "1"},
	}
	status, session, body, err := c.post(ctx, map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
	if err != nil {
		return err
	}
	if status != http.StatusOK || session == "" {
		return fmt.Errorf("initialize: HTTP %d, session %q: %.200s", status, session, body)
	}
	c.session = session
	status, _, body, err = c.post(ctx, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if err != nil {
		return err
	}
	if status != http.StatusAccepted {
		return fmt.Errorf("notifications/initialized: HTTP %d: %.200s", status, body)
	}
	return nil
}

// call makes a tools/call and returns its result and how long the round
// trip took.
func (c *client) call(ctx context.Context, tool string, args any) (*toolResult, time.Duration, error) {
	start := time.Now()
	resp, err := c.request(ctx, "tools/call", map[string]any{"name": tool, "arguments": args})
	took := time.Since(start)
	if err != nil {
		return nil, took, err
	}
	var res toolResult
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		return nil, took, fmt.Errorf("%s: result: %v: %.200s", tool, err, resp.Result)
	}
	return &res, took, nil
}

// end ends the session with DELETE; the server answers 204.
func (c *client) end(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set(sessionHeader, c.session)
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("DELETE: HTTP %d, want 204", resp.StatusCode)
	}
	return nil
}
