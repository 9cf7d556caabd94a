package membench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loom-results/loom-results/internal/instruments/loadtest"
)

// call is a tools/call line.
func call(tool string, args []byte) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":`)
	b = append(b, args...)
	return append(b, "}}"...)
}

// answered checks that an answer is a tool result, not a protocol fault.
func answered(b []byte) error {
	var m struct {
		Result *json.RawMessage `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("answer is not JSON: %w: %.200s", err, b)
	}
	if m.Result == nil {
		return fmt.Errorf("no result: %.300s", b)
	}
	return nil
}

// pathInput inspects one path of size bytes, "a/a/.../b", in a root where
// "a" does not exist.
func pathInput(size int) func(context.Context, env) (Sample, error) {
	return func(_ context.Context, e env) (Sample, error) {
		path := strings.Repeat("a/", size/2-1) + "bb"
		msg := call("inspect", []byte(`{"paths":["`+path+`"]}`))
		return e.measure(e.dir, func(s *stdioServer) error {
			b, err := s.call(msg)
			if err != nil {
				return err
			}
			return answered(b)
		})
	}
}

// array is a JSON array of size bytes (at least 4): [0,0,...,0 ], the
// most values a document of that size can hold.
func array(size int) string {
	return "[" + strings.Repeat("0,", (size-4)/2) + strings.Repeat(" ", size%2) + "0 ]"
}

// expandArrayInput calls expand_edit with arguments holding one array of
// size bytes: no node to expand, every value returned as it is.
func expandArrayInput(size int) func(context.Context, env) (Sample, error) {
	return func(_ context.Context, e env) (Sample, error) {
		arr := array(size)
		msg := call("expand_edit", []byte(`{"arguments":{"x":`+arr+`}}`))
		return e.measure(e.dir, func(s *stdioServer) error {
			b, err := s.call(msg)
			if err != nil {
				return err
			}
			return answered(b)
		})
	}
}

// getJSONInput inspects a file holding one array of size bytes and makes
// the first get_json on it.
func getJSONInput(size int) func(context.Context, env) (Sample, error) {
	return func(_ context.Context, e env) (Sample, error) {
		doc := array(size)
		if err := os.WriteFile(filepath.Join(e.dir, "big.json"), []byte(doc), 0o644); err != nil {
			return Sample{}, err
		}
		return e.measure(e.dir, func(s *stdioServer) error {
			for _, msg := range [][]byte{
				call("inspect", []byte(`{"paths":["big.json"]}`)),
				call("get_json", []byte(`{"result":"r1","pointer":"/0"}`)),
			} {
				b, err := s.call(msg)
				if err != nil {
					return err
				}
				if err := answered(b); err != nil {
					return err
				}
				if bytes.Contains(b, []byte(`"isError":true`)) || bytes.Contains(b, []byte(`"error":{`)) {
					return fmt.Errorf("%.300s", b)
				}
			}
			return nil
		})
	}
}

// sessionsInput opens n HTTP sessions at once, each holding a file of size
// bytes (16 distinct files, each read by several sessions: a briefing
// keeps its own copy). Each session inspects its file, then, as an agent
// that reads again after a change does, inspects it three times more
// (reused: the bytes read each time become garbage) and finds a line in it
// between the inspects.
func sessionsInput(n, size int) func(context.Context, env) (Sample, error) {
	return func(ctx context.Context, e env) (Sample, error) {
		const files = 16
		line := strings.Repeat("x", 63) + "\n"
		for i := range files {
			body := strings.Repeat(strconv.Itoa(i%10)+line[1:], size/64)
			if err := os.WriteFile(filepath.Join(e.dir, fmt.Sprintf("f%d.txt", i)), []byte(body), 0o644); err != nil {
				return Sample{}, err
			}
		}
		cmd := e.start(e.dir, "--http", "127.0.0.1:0")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			return Sample{}, err
		}
		if err := cmd.Start(); err != nil {
			return Sample{}, err
		}
		defer func() {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}()
		url, log, err := waitURL(stderr)
		if err != nil {
			return Sample{}, fmt.Errorf("%w\n%s", err, log)
		}
		hc := &http.Client{Timeout: time.Minute}
		var mu sync.Mutex
		var stored int64
		var errs []error
		var wg sync.WaitGroup
		start := time.Now()
		for k := range n {
			wg.Go(func() {
				got, err := session(ctx, hc, url, fmt.Sprintf("f%d.txt", k%files))
				mu.Lock()
				defer mu.Unlock()
				stored += got
				if err != nil {
					errs = append(errs, err)
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		if err := errors.Join(errs...); err != nil {
			return Sample{}, err
		}
		peak, err := peakRSS(cmd.Process.Pid)
		cpu, _ := loadtest.ProcessCPU(cmd.Process.Pid)
		return Sample{Peak: peak, Stored: stored, Elapsed: elapsed, CPU: cpu}, err
	}
}

// waitURL reads the server's log until it names the URL it serves; the
// rest of the log is drained in the background.
func waitURL(stderr io.Reader) (string, string, error) {
	sc := bufio.NewScanner(stderr)
	var log strings.Builder
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, stderr)
			return m[1], log.String(), nil
		}
	}
	return "", log.String(), errors.New("the server exited without serving")
}

// session initializes one session, inspects path in it, and returns the
// bytes it retained.
func session(ctx context.Context, hc *http.Client, url, path string) (int64, error) {
	post := func(id string, body []byte) (*http.Response, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, b, err
	}
	resp, _, err := post("", []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"loom-mem","version":"1"}}}`))
	if err != nil {
		return 0, err
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		return 0, fmt.Errorf("initialize: %s, no session", resp.Status)
	}
	if _, _, err := post(id, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return 0, err
	}
	var b []byte
	for i := range 4 {
		if _, b, err = post(id, call("inspect", []byte(`{"paths":["`+path+`"]}`))); err != nil {
			return 0, err
		}
		if i < 3 {
			if _, _, err := post(id, call("find", []byte(`{"result":"r1","pattern":"x
","max_matches":3}`))); err != nil {
				return 0, err
			}
		}
	}
	var m struct {
		Result struct {
			Structured struct {
				Results []struct {
					Bytes    int64 `json:"bytes"`
					Retained bool  `json:"retained"`
				} `json:"results"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &m); err != nil || len(m.Result.Structured.Results) != 1 {
		return 0, fmt.Errorf("inspect: %.300s", b)
	}
	if r := m.Result.Structured.Results[0]; r.Retained {
		return r.Bytes, nil
	}
	return 0, fmt.Errorf("inspect: not retained: %.300s", b)
}
