package transport

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

// The dispatch: every message a transport reads is answered here, from one
// table of methods (methods), by both transports. mcp-go's mcp package
// gives the protocol's types (requests' params, results, error codes);
// what each method answers, and in which order its checks come, is the
// one MCP server this project used to embed (mcp-go's MCPServer), kept as
// its clients saw it and pinned by the conformance scripts dispatch_*.

// peer is the protocol state of one client session that the dispatch
// keeps between its messages.
type peer struct {
	// initialized is set by initialize, and by any request of the
	// 2026-07-28 era (which has no handshake): logging/setLevel needs it.
	initialized atomic.Bool
	// level is logging/setLevel's level. The server sends no log
	// messages (it logs to stderr), so it changes nothing.
	level atomic.Value // mcp.LoggingLevel
	// versions are the protocol versions the transport serves, newest
	// first: server/discover names them, and so does the error of an
	// unknown version.
	versions []string
}

// fault is a JSON-RPC error answer, without its id.
type fault struct {
	code int
	msg  string
	data any
}

// withID is the error answer f to the request of that id.
func (f *fault) withID(id any) mcp.JSONRPCError {
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Error: mcp.NewJSONRPCErrorDetails(f.code, f.msg, f.data)}
}

// eraRule says in which protocol era a method exists.
type eraRule uint8

const (
	anyEra     eraRule = iota
	legacyOnly         // removed in protocol version 2026-07-28
	modernOnly         // introduced in protocol version 2026-07-28
)

// A method is one row of the dispatch table. Its checks come in this
// order: the era, the capability, the params' shape, then serve.
type method struct {
	era eraRule
	// unsupported names the capability the server lacks, for the methods
	// of MCP it does not serve ("resources not supported", -32601).
	unsupported string
	// meta says that the method's params carry _meta: one that is not an
	// object is a malformed request (-32600).
	meta bool
	// cacheable says that a 2026-07-28 result carries the cache hints.
	cacheable bool
	serve     func(tr *Transport, ctx context.Context, p *peer, r *request) (any, *fault)
}

// request is a request being dispatched: the message, its era, and the
// progress token of its _meta.
type request struct {
	*inbound
	modern   bool
	progress mcp.ProgressToken
}

// methods is the dispatch table: every method of MCP, those the server
// does not serve included, for their answers.
var methods = map[string]method{
	string(mcp.MethodInitialize):             {era: legacyOnly, serve: (*Transport).initialize},
	string(mcp.MethodPing):                   {era: legacyOnly, meta: true, serve: (*Transport).ping},
	string(mcp.MethodServerDiscover):         {era: modernOnly, meta: true, cacheable: true, serve: (*Transport).discover},
	string(mcp.MethodSubscriptionsListen):    {era: modernOnly, meta: true, serve: (*Transport).listen},
	string(mcp.MethodSetLogLevel):            {era: legacyOnly, serve: (*Transport).setLevel},
	string(mcp.MethodToolsList):              {meta: true, cacheable: true, serve: (*Transport).listTools},
	string(mcp.MethodToolsCall):              {meta: true, serve: (*Transport).callTool},
	string(mcp.MethodResourcesList):          {unsupported: "resources"},
	string(mcp.MethodResourcesTemplatesList): {unsupported: "resources"},
	string(mcp.MethodResourcesRead):          {unsupported: "resources"},
	string(mcp.MethodResourcesSubscribe):     {era: legacyOnly, unsupported: "resources"},
	string(mcp.MethodResourcesUnsubscribe):   {era: legacyOnly, unsupported: "resources"},
	string(mcp.MethodPromptsList):            {unsupported: "prompts"},
	string(mcp.MethodPromptsGet):             {unsupported: "prompts"},
	string(mcp.MethodTasksGet):               {unsupported: "tasks"},
	string(mcp.MethodTasksList):              {era: legacyOnly, unsupported: "tasks"},
	string(mcp.MethodTasksResult):            {era: legacyOnly, unsupported: "tasks"},
	string(mcp.MethodTasksCancel):            {unsupported: "tasks"},
	string(mcp.MethodCompletionComplete):     {unsupported: "completions"},
}

// route checks m's envelope and era and routes it through the method table:
// its answer, for m a request or a notification that readMessage
// took (not a response), handled in its session's context: nil for a
// notification, which gets none unless its envelope is malformed.
func (tr *Transport) route(ctx context.Context, p *peer, m *inbound) mcp.JSONRPCMessage {
	if f := m.envelopeFault(); f != nil {
		return f.withID(m.errorID())
	}
	if m.id == nil {
		return m.notification()
	}
	r := &request{inbound: m}
	if f := r.readEra(p.versions); f != nil {
		return f.withID(m.id)
	}
	if r.modern {
		// The era has no handshake: its requests stand for one.
		p.initialized.Store(true)
	}
	row, ok := methods[m.method]
	if !ok {
		return (&fault{mcp.METHOD_NOT_FOUND, fmt.Sprintf("Method %s not found", m.method), nil}).withID(m.id)
	}
	res, f := row.dispatch(tr, ctx, p, r)
	if f != nil {
		return f.withID(m.id)
	}
	if r.modern {
		tr.decorate(res, row.cacheable)
	}
	return mcp.NewJSONRPCResultResponse(mcp.NewRequestId(m.id), res)
}

// dispatch runs the row's checks, then serve.
func (row method) dispatch(tr *Transport, ctx context.Context, p *peer, r *request) (any, *fault) {
	switch {
	case row.era == legacyOnly && r.modern:
		return nil, &fault{mcp.METHOD_NOT_FOUND, fmt.Sprintf("%q was removed in protocol version %s", r.method, mcp.ProtocolVersion20260728), nil}
	case row.era == modernOnly && !r.modern:
		return nil, &fault{mcp.METHOD_NOT_FOUND, fmt.Sprintf("%q requires protocol version %s or later", r.method, mcp.ProtocolVersion20260728), nil}
	case row.unsupported != "":
		return nil, &fault{mcp.METHOD_NOT_FOUND, row.unsupported + " not supported", nil}
	}
	if f := r.paramsShape(); f != nil {
		return nil, f
	}
	if k := r.meta.Kind; row.meta && r.meta.Present() && k() != jsontape.Object && k() != jsontape.Null {
		var meta mcp.Meta
		return nil, r.unparsable("_meta", json.Unmarshal(r.meta.Bytes(), &meta))
	}
	return row.serve(tr, ctx, p, r)
}

// envelopeFault is the error of an envelope that is not JSON-RPC 2.0's:
// a "jsonrpc" other than "2.0" (-32600), or, as encoding/json's reading
// of the envelope refused it, a "jsonrpc" that is neither a string nor
// null, or an id that is a number beyond float64 (-32700).
func (m *inbound) envelopeFault() *fault {
	v := m.jsonrpc
	if v.Present() && string(v.Bytes()) == `"2.0"` && !overflows(m.id) {
		return nil
	}
	if v.Present() && v.Kind() != jsontape.String && v.Kind() != jsontape.Null || overflows(m.id) {
		return &fault{mcp.PARSE_ERROR, "Failed to parse message", nil}
	}
	if !v.Present() || v.Kind() == jsontape.Null || jsonString(v) != mcp.JSONRPC_VERSION {
		return &fault{mcp.INVALID_REQUEST, "Invalid JSON-RPC version", nil}
	}
	return nil
}

// overflows reports an id that is a number beyond float64's range.
func overflows(id json.RawMessage) bool {
	if len(id) <= 15 && !bytes.ContainsAny(id, "eE") || id[0] == '"' {
		return false // at most 15 digits, or a string
	}
	_, err := strconv.ParseFloat(string(id), 64)
	return err != nil
}

// notification acts on nothing: the one notification the server acts on,
// notifications/cancelled, each transport acts on as it reads it, and
// every other one is ignored. Params that are neither an object nor null
// are a parse error, answered with id null.
func (m *inbound) notification() mcp.JSONRPCMessage {
	if k := m.params.Kind; m.params.Present() && k() != jsontape.Object && k() != jsontape.Null {
		return (&fault{mcp.PARSE_ERROR, "Failed to parse notification", nil}).withID(nil)
	}
	return nil
}

// readEra reads the request's _meta and tells its protocol era: 2026-07-28
// (modern) when _meta names that version or a later one under
// io.modelcontextprotocol/protocolVersion. Such a request needs the
// client's capabilities in _meta (-32602), and a version the server does
// not know is refused with the versions it serves (-32022). Any other
// request, one whose _meta is not an object included, is of the initialize
// era. The members of _meta are read from the message's index by their
// exact names, the last of a repeated one counting, as a JSON object
// decoded into a map reads them (mcp.Meta).
func (r *request) readEra(versions []string) *fault {
	if !r.meta.Present() || r.meta.Kind() != jsontape.Object {
		return nil
	}
	var version, caps, token jsontape.Sub
	for member, v := range r.ix.Members(r.meta.Node) {
		switch member.Name {
		case mcp.MetaKeyProtocolVersion:
			version = r.ix.SubOf(v)
		case mcp.MetaKeyClientCapabilities:
			caps = r.ix.SubOf(v)
		case "progressToken":
			token = r.ix.SubOf(v)
		}
	}
	if token.Present() {
		json.Unmarshal(token.Bytes(), &r.progress) // any value the index took decodes
	}
	v := r.metaVersion(version)
	if !mcp.IsModernProtocol(v) {
		return nil
	}
	var capabilities *mcp.ClientCapabilities
	if !caps.Present() || json.Unmarshal(caps.Bytes(), &capabilities) != nil || capabilities == nil {
		return &fault{mcp.INVALID_PARAMS, "missing or invalid _meta field " + mcp.MetaKeyClientCapabilities, nil}
	}
	if !mcp.IsValidProtocolVersion(v) {
		e := mcp.UnsupportedProtocolVersionError{Version: v, Supported: versions}.JSONRPCError()
		return &fault{e.Error.Code, e.Error.Message, e.Error.Data}
	}
	r.modern = true
	return nil
}

// metaVersion is the protocol version that _meta's member v names: its
// text when it is a string, else "".
func (m *inbound) metaVersion(v jsontape.Sub) string {
	if !v.Present() || v.Kind() != jsontape.String {
		return ""
	}
	return jsonString(v)
}

// protocolVersion is the protocol version that params._meta names under
// io.modelcontextprotocol/protocolVersion, or "".
func (m *inbound) protocolVersion() string {
	if !m.meta.Present() || m.meta.Kind() != jsontape.Object {
		return ""
	}
	var version jsontape.Sub
	for member, v := range m.ix.Members(m.meta.Node) {
		if member.Name == mcp.MetaKeyProtocolVersion {
			version = m.ix.SubOf(v)
		}
	}
	return m.metaVersion(version)
}

// paramsShape refuses params that are neither an object nor null.
func (r *request) paramsShape() *fault {
	if k := r.params.Kind; r.params.Present() && k() != jsontape.Object && k() != jsontape.Null {
		return &fault{mcp.INVALID_REQUEST, fmt.Sprintf("unparsable %s request: params is %s, not an object", r.method, withArticle(k())), nil}
	}
	return nil
}

// withArticle is a JSON type for a message: "an array", "a string".
func withArticle(k jsontape.Type) string {
	if k == jsontape.Array || k == jsontape.Object {
		return "an " + string(k)
	}
	return "a " + string(k)
}

// unparsable is the error of a params member that does not decode into
// its protocol type.
func (r *request) unparsable(member string, err error) *fault {
	return &fault{mcp.INVALID_REQUEST, fmt.Sprintf("unparsable %s request: params.%s: %v", r.method, member, err), nil}
}

// param decodes the params member of the given name into v, a protocol
// type of mcp-go, which fixes the member's shape (encoding/json); an
// absent member leaves v as it is.
func (r *request) param(name string, v any) *fault {
	if !r.params.Present() || r.params.Kind() != jsontape.Object {
		return nil
	}
	var found jsontape.Sub
	for member, val := range r.ix.Members(r.params.Node) {
		if member.Name == name {
			found = r.ix.SubOf(val)
		}
	}
	if !found.Present() {
		return nil
	}
	if err := json.Unmarshal(found.Bytes(), v); err != nil {
		return r.unparsable(name, err)
	}
	return nil
}

// decorate gives a 2026-07-28 result what that version requires of it:
// resultType (complete, unless the result set one), the server's identity
// in _meta, and, on the results of lists and server/discover, the cache
// hints (revalidate at once, private).
func (tr *Transport) decorate(res any, cacheable bool) {
	r, ok := res.(mcp.ResultMetadata)
	if !ok {
		return
	}
	if r.GetResultType() == "" {
		r.SetResultType(mcp.ResultTypeComplete)
	}
	if meta := r.EnsureResultMeta(); meta.ServerInfo() == nil {
		meta.SetServerInfo(tr.implementation())
	}
	if c, ok := res.(interface {
		mcp.CacheHintSetter
		TTL() (int64, bool)
	}); ok && cacheable {
		if _, set := c.TTL(); !set {
			c.SetCacheHints(0, mcp.CacheScopePrivate)
		}
	}
}

// implementation is the server's identity.
func (tr *Transport) implementation() mcp.Implementation {
	return mcp.Implementation{Name: tr.cfg.Name, Version: tr.cfg.Version}
}

// capabilities are the server's: tools (a list that never changes) and
// logging (logging/setLevel is accepted; the server sends no log
// messages).
func capabilities() mcp.ServerCapabilities {
	var c mcp.ServerCapabilities
	c.Tools = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{}
	c.Logging = &struct{}{}
	return c
}

// initialize answers the handshake of the initialize era: the client's
// version when it is one of that era, else the era's latest (2025-11-25;
// without a version, 2025-03-26, as MCP says to assume). Sent again, it
// changes nothing.
func (tr *Transport) initialize(_ context.Context, p *peer, r *request) (any, *fault) {
	var params struct {
		version string
		caps    mcp.ClientCapabilities
		info    mcp.Implementation
	}
	for _, f := range []*fault{r.param("protocolVersion", &params.version), r.param("capabilities", &params.caps), r.param("clientInfo", &params.info)} {
		if f != nil {
			return nil, f
		}
	}
	p.initialized.Store(true)
	return &mcp.InitializeResult{
		ProtocolVersion: mcp.NegotiateLegacyVersion(params.version),
		ServerInfo:      tr.implementation(),
		Capabilities:    capabilities(),
		Instructions:    tr.cfg.Instructions,
	}, nil
}

func (tr *Transport) ping(context.Context, *peer, *request) (any, *fault) {
	return &mcp.EmptyResult{}, nil
}

// discover answers server/discover (2026-07-28): the versions the
// transport serves, the capabilities, the instructions.
func (tr *Transport) discover(_ context.Context, p *peer, _ *request) (any, *fault) {
	return &mcp.DiscoverResult{SupportedVersions: p.versions, Capabilities: capabilities(), Instructions: tr.cfg.Instructions}, nil
}

// listen answers subscriptions/listen (2026-07-28). The server offers no
// notification a client can subscribe to (its tool list never changes),
// so the stream it opens is acknowledged with an empty filter and closed
// at once: the acknowledgement, then the result, both naming the
// subscription by the request's id.
func (tr *Transport) listen(ctx context.Context, _ *peer, r *request) (any, *fault) {
	var filter mcp.SubscriptionFilter
	if f := r.param("notifications", &filter); f != nil {
		return nil, f
	}
	Notify(ctx, mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationSubscriptionsAcknowledged),
			Params: mcp.NotificationParams{
				Meta:             map[string]any{mcp.MetaKeySubscriptionID: r.id},
				AdditionalFields: map[string]any{"notifications": mcp.SubscriptionFilter{}},
			},
		},
	})
	res := &mcp.SubscriptionsListenResult{}
	res.EnsureResultMeta().SetSubscriptionID(r.id)
	return res, nil
}

// setLevel answers logging/setLevel: once the session is initialized, any
// of the eight levels of MCP.
func (tr *Transport) setLevel(_ context.Context, p *peer, r *request) (any, *fault) {
	var level mcp.LoggingLevel
	if f := r.param("level", &level); f != nil {
		return nil, f
	}
	if !p.initialized.Load() {
		return nil, &fault{mcp.INTERNAL_ERROR, "session not properly initialized", nil}
	}
	switch level {
	case mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
		mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency:
	default:
		return nil, &fault{mcp.INVALID_PARAMS, fmt.Sprintf("invalid logging level '%s'", level), nil}
	}
	p.level.Store(level)
	return &mcp.EmptyResult{}, nil
}

// listTools answers tools/list: every tool, sorted by name, after the
// cursor when one is given (the base64 of the name to list after); the
// list is never cut into pages.
func (tr *Transport) listTools(_ context.Context, _ *peer, r *request) (any, *fault) {
	var cursor mcp.Cursor
	if f := r.param("cursor", &cursor); f != nil {
		return nil, f
	}
	tools := tr.list
	if cursor != "" {
		after, err := base64.StdEncoding.DecodeString(string(cursor))
		if err != nil {
			return nil, &fault{mcp.INVALID_PARAMS, err.Error(), nil}
		}
		tools = tools[sort.Search(len(tools), func(i int) bool { return tools[i].Name > string(after) }):]
	}
	return &mcp.ListToolsResult{Tools: append(make([]mcp.Tool, 0, len(tools)), tools...)}, nil
}

// callTool answers tools/call: the tool's handler, with the arguments as
// the message holds them. An unknown tool is -32602; a handler's error, or
// no result, -32603.
func (tr *Transport) callTool(ctx context.Context, _ *peer, r *request) (any, *fault) {
	if r.name.Present() {
		if k := r.name.Kind(); k != jsontape.String && k != jsontape.Null {
			return nil, r.unparsable("name", fmt.Errorf("a tool name is a string, not %s", withArticle(k)))
		}
	}
	if r.task.Present() || r.responses.Present() || r.state.Present() {
		if f := r.callMembers(); f != nil {
			return nil, f
		}
	}
	tool := tr.tools[r.tool]
	if tool == nil {
		return nil, &fault{mcp.INVALID_PARAMS, fmt.Sprintf("tool '%s' not found: tool not found", r.tool), nil}
	}
	call := Call{Arguments: r.args, ProgressToken: r.progress, NewStep: r.newStep}
	res, err := tool.Handler(ctx, call)
	switch {
	case err != nil:
		return nil, &fault{mcp.INTERNAL_ERROR, err.Error(), nil}
	case res == nil:
		return nil, &fault{mcp.INTERNAL_ERROR, fmt.Sprintf("tool '%s' handler returned no result", r.tool), nil}
	}
	return res, nil
}

// callMembers checks the shapes of tools/call's task, inputResponses and
// requestState, as mcp.CallToolParams fixes them. The server runs no task
// and asks for no input, so their values change nothing.
func (r *request) callMembers() *fault {
	var (
		task      *mcp.TaskParams
		responses mcp.InputResponses
		state     string
	)
	for _, x := range []struct {
		name string
		v    jsontape.Sub
		into any
	}{{"task", r.task, &task}, {"inputResponses", r.responses, &responses}, {"requestState", r.state, &state}} {
		if x.v.Present() {
			if err := json.Unmarshal(x.v.Bytes(), x.into); err != nil {
				return r.unparsable(x.name, err)
			}
		}
	}
	return nil
}
