package membench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loom-results/loom-results/internal/instruments/loadtest"
)

// start runs the server with --root root, the extra flags and environment
// of e, and args.
func (e env) start(root string, args ...string) *exec.Cmd {
	cmd := exec.Command(e.bin, append(append([]string{"--root", root}, args...), e.args...)...)
	if len(e.vars) > 0 {
		cmd.Env = append(os.Environ(), e.vars...)
	}
	return cmd
}

// peakRSS reads a process's peak resident set (VmHWM) in bytes.
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/<pid>/status")
}

// stdioServer is a server on pipes: one JSON-RPC message a line each way.
type stdioServer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	log bytes.Buffer
}

func (e env) startStdio(root string) (*stdioServer, error) {
	s := &stdioServer{cmd: e.start(root)}
	s.cmd.Stderr = &s.log
	in, err := s.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	s.in, s.out = in, bufio.NewReaderSize(out, 1<<20)
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"loom-mem","version":"1"}}}`
	if _, err := s.call([]byte(init)); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// call writes one message and reads its answer.
func (s *stdioServer) call(msg []byte) ([]byte, error) {
	if _, err := s.in.Write(append(msg, '\n')); err != nil {
		return nil, fmt.Errorf("writing to the server: %w\n%s", err, s.log.String())
	}
	line, err := s.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("reading the server's answer: %w\n%s", err, s.log.String())
	}
	return line, nil
}

// stored sums the bytes of the retained results, from list_results (a
// begin_step before each page, so that no step runs out of lookups).
func (s *stdioServer) stored() (int64, error) {
	var total int64
	for page := 0; ; page++ {
		if _, err := s.call([]byte(`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"begin_step","arguments":{}}}`)); err != nil {
			return 0, err
		}
		b, err := s.call([]byte(`{"jsonrpc":"2.0","id":"l","method":"tools/call","params":{"name":"list_results","arguments":{"page":` + strconv.Itoa(page) + `}}}`))
		if err != nil {
			return 0, err
		}
		var m struct {
			Result struct {
				Structured struct {
					Results []struct {
						Bytes int64 `json:"bytes"`
					} `json:"results"`
					Next *int `json:"next"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return 0, fmt.Errorf("list_results: %w: %.200s", err, b)
		}
		for _, r := range m.Result.Structured.Results {
			total += r.Bytes
		}
		if m.Result.Structured.Next == nil {
			return total, nil
		}
	}
}

// stop closes the server's input (the end of input ends it with status 0)
// and waits for it, killing it 5 s later if it has not exited.
func (s *stdioServer) stop() error {
	s.in.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		s.cmd.Process.Signal(syscall.SIGKILL)
		<-done
		return errors.New("still running 5 s after its input ended, killed")
	}
}

// measure runs the work on a fresh stdio server over root and returns its
// peak and stored bytes once the work is done.
func (e env) measure(root string, work func(s *stdioServer) error) (Sample, error) {
	s, err := e.startStdio(root)
	if err != nil {
		return Sample{}, err
	}
	start := time.Now()
	werr := work(s)
	elapsed := time.Since(start)
	peak, perr := peakRSS(s.cmd.Process.Pid)
	cpu, _ := loadtest.ProcessCPU(s.cmd.Process.Pid)
	var stored int64
	if werr == nil && perr == nil {
		stored, werr = s.stored()
	}
	if err := s.stop(); err != nil && werr == nil {
		werr = fmt.Errorf("server exit: %w\n%s", err, s.log.String())
	}
	if werr != nil {
		return Sample{}, werr
	}
	return Sample{Peak: peak, Stored: stored, Elapsed: elapsed, CPU: cpu}, perr
}

// urlLine is the log line ServeHTTP writes once it listens.
var urlLine = regexp.MustCompile(`serving MCP \(Streamable HTTP\) at (http://\S+/mcp)`)
