package perfbench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loom-results/loom-results/internal/instruments/replayserver"
	"github.com/loom-results/loom-results/internal/testkit/stdioclient"
)

// httpCycle is the number of lookups each session makes per begin_step in
// the HTTP rows: one of each of lookupJobs.
const httpCycle = 4

// httpPhase measures HTTP lookups/s of loom and of the replay handler
// (internal/instruments/replayserver behind net/http, in a process of its own), with
// each of cfg.HTTPSessions sessions making lookups at once: loom, then the
// replay handler, for each session count, in every round.
func (r *runner) httpPhase(ctx context.Context) error {
	if r.cfg.Replay == nil {
		return nil
	}
	dir, err := os.MkdirTemp("", "loom-perf-tapes-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	most := slices.Max(r.cfg.HTTPSessions)
	hc := &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: 2 * most, DisableCompression: true},
		Timeout:   30 * time.Second,
	}
	defer hc.CloseIdleConnections()
	jobs := lookupJobs(r.c.HTTPLines, fileSize(r.c.Root, httpText, r.cfg.HTTPBytes), r.c.HTTPItems)

	loom, err := startHTTP(ctx, append(append([]string{}, r.cfg.Loom...), "--root", r.c.Root, "--http", "127.0.0.1:0"))
	if err != nil {
		return err
	}
	defer loom.stop()

	// The recording: one loom session, from initialize to one pass of
	// every call, then ended.
	rec := replayserver.NewRecorder()
	s := &httpSession{hc: hc, url: loom.url, rec: rec}
	if err := s.initialize(ctx); err != nil {
		return err
	}
	if err := prepareFiles(ctx, s, httpText, httpJSON, r.c.Small); err != nil {
		return err
	}
	if err := replayPass(ctx, s, jobs); err != nil {
		return err
	}
	if err := s.end(ctx); err != nil {
		return err
	}
	tape := filepath.Join(dir, "http.tape")
	if err := replayserver.WriteTape(tape, rec.Tape()); err != nil {
		return err
	}
	replay, err := startHTTP(ctx, append(append([]string{}, r.cfg.Replay...), "--tape", tape, "--http", "127.0.0.1:0"))
	if err != nil {
		return err
	}
	defer replay.stop()

	// The sessions, prepared alike on both servers.
	var sessions [2][]*httpSession
	for side, p := range []*httpProc{loom, replay} {
		for range most {
			s := &httpSession{hc: hc, url: p.url}
			if err := s.initialize(ctx); err != nil {
				return err
			}
			if err := prepareFiles(ctx, s, httpText, httpJSON, r.c.Small); err != nil {
				return err
			}
			sessions[side] = append(sessions[side], s)
		}
	}
	defer func() {
		for _, side := range sessions {
			for _, s := range side {
				s.end(context.Background())
			}
		}
	}()
	return r.rounds(ctx, PhaseHTTP, func(ctx context.Context, _ int) error {
		for _, n := range r.cfg.HTTPSessions {
			row := r.rows[fmt.Sprintf("http%d", n)]
			for side := range sessions {
				pause()
				rate, err := lookupRate(ctx, sessions[side][:n], jobs, r.cfg.HTTPLookups)
				if err != nil {
					return fmt.Errorf("%d sessions: %w", n, err)
				}
				if side == 0 {
					row.Loom = append(row.Loom, rate)
				} else {
					row.BaseSamples = append(row.BaseSamples, rate)
				}
			}
		}
		return nil
	})
}

// lookupRate has every session make its share of total lookups at once,
// httpCycle at a time after a begin_step (not counted), and returns the
// lookups made per second of wall time, from the start of all to the end
// of the last.
func lookupRate(ctx context.Context, sessions []*httpSession, jobs []replayJob, total int) (float64, error) {
	cycles := max(1, (total+len(sessions)*httpCycle-1)/(len(sessions)*httpCycle))
	start := make(chan struct{})
	errs := make([]error, len(sessions))
	var wg sync.WaitGroup
	for k, s := range sessions {
		wg.Go(func() {
			<-start
			for c := range cycles {
				if _, err := s.lookup(ctx, "begin_step", `{}`); err != nil {
					errs[k] = err
					return
				}
				for _, job := range jobs {
					if _, err := s.lookup(ctx, job.tool, job.args[(c+k)%len(job.args)]); err != nil {
						errs[k] = err
						return
					}
				}
			}
		})
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	elapsed := time.Since(t0)
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return float64(len(sessions)*cycles*len(jobs)) / elapsed.Seconds(), nil
}

// An httpSession is one MCP session over Streamable HTTP: JSON-RPC POSTs
// with the session header, the answers read whole and checked for an
// error, nothing decoded.
type httpSession struct {
	hc      *http.Client
	url     string
	session string
	id      int
	body    []byte
	answer  bytes.Buffer
	// rec, when set, records every request and answer.
	rec *replayserver.Recorder
}

// post sends one message and returns the answer's status and body (valid
// until the next post).
func (s *httpSession) post(ctx context.Context, msg []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(msg))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
		req.Header.Set("MCP-Protocol-Version", protocolVersion)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	s.answer.Reset()
	if _, err := s.answer.ReadFrom(resp.Body); err != nil {
		return 0, nil, err
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && s.session == "" {
		s.session = id
	}
	if s.rec != nil && resp.StatusCode != http.StatusAccepted {
		s.rec.Add(replayserver.Exchange{Request: msg, Answer: s.answer.Bytes(), Status: resp.StatusCode,
			ContentType: resp.Header.Get("Content-Type"), Session: resp.Header.Get("Mcp-Session-Id") != ""})
	}
	return resp.StatusCode, s.answer.Bytes(), nil
}

// request sends a request and returns its 200 answer.
func (s *httpSession) request(ctx context.Context, method, params string) ([]byte, error) {
	s.id++
	s.body = append(s.body[:0], `{"jsonrpc":"2.0","id":`...)
	s.body = strconv.AppendInt(s.body, int64(s.id), 10)
	s.body = append(s.body, `,"method":"`...)
	s.body = append(s.body, method...)
	s.body = append(s.body, `","params":`...)
	s.body = append(s.body, params...)
	s.body = append(s.body, '}')
	status, body, err := s.post(ctx, s.body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	want := `{"jsonrpc":"2.0","id":` + strconv.Itoa(s.id) + `,`
	if status != http.StatusOK || !bytes.HasPrefix(body, []byte(want)) || bytes.HasPrefix(body[len(want):], []byte(`"error":`)) {
		return nil, fmt.Errorf("%s %s: HTTP %d: %.300s", method, params, status, body)
	}
	return body, nil
}

// initialize starts the session.
func (s *httpSession) initialize(ctx context.Context) error {
	if _, err := s.request(ctx, "initialize", `{"protocolVersion":"`+protocolVersion+`","capabilities":{},"clientInfo":{"name":"loom-perf","version":"0.1.0"}}`); err != nil {
		return err
	}
	if s.session == "" {
		return fmt.Errorf("initialize at %s: no Mcp-Session-Id", s.url)
	}
	status, body, err := s.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		return err
	}
	if status != http.StatusAccepted {
		return fmt.Errorf("notifications/initialized: HTTP %d: %.200s", status, body)
	}
	return nil
}

// lookup calls tool with args; an error result is an error. The time is
// not measured per call: the HTTP rows measure a rate.
func (s *httpSession) lookup(ctx context.Context, tool, args string) (time.Duration, error) {
	body, err := s.request(ctx, "tools/call", `{"name":"`+tool+`","arguments":`+args+`}`)
	if err == nil && bytes.Contains(body, []byte(`"isError":true`)) {
		err = fmt.Errorf("tools/call %s %s: error result: %.300s", tool, args, body)
	}
	return 0, err
}

// end ends the session with DELETE.
func (s *httpSession) end(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Mcp-Session-Id", s.session)
	resp, err := s.hc.Do(req)
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

// close is end, for the lookuper interface.
func (s *httpSession) close() { s.end(context.Background()) }

// httpProc is a server process serving Streamable HTTP.
type httpProc struct {
	cmd    *exec.Cmd
	url    string
	stderr *stdioclient.LockedBuffer
	done   chan struct{} // closed when the process has exited
}

// servingLine is the line loom-results and loom-replay log once they
// listen.
var servingLine = regexp.MustCompile(`serving MCP \(Streamable HTTP\) at (http://\S+/mcp)`)

// startHTTP starts argv and waits for the URL it logs.
func startHTTP(ctx context.Context, argv []string) (*httpProc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	p := &httpProc{cmd: cmd, stderr: &stdioclient.LockedBuffer{}, done: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			p.stderr.Write([]byte(sc.Text() + "\n"))
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, pipe)
		cmd.Wait()
		close(p.done)
	}()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	select {
	case p.url = <-found:
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("%s exited before serving: %s", argv[0], p.stderr.String())
	case <-timeout.C:
		p.stop()
		return nil, fmt.Errorf("%s logged no URL within 20 s: %s", argv[0], p.stderr.String())
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
}

// stop ends the server with SIGTERM, killing it if it has not exited 5 s
// later.
func (p *httpProc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}
