package replayserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// An Exchange is one request and the answer a server gave it, byte for
// byte.
type Exchange struct {
	// Request is the message as the client sent it: a stdio line without
	// its line ending, or an HTTP request's body.
	Request []byte `json:"request"`
	// Answer is the server's answer: a stdio line without its line ending,
	// or an HTTP answer's body.
	Answer []byte `json:"answer"`
	// Status and ContentType are the HTTP answer's status and Content-Type
	// (0 and "" over stdio).
	Status      int    `json:"status,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	// Session is whether the HTTP answer started a session (it carried an
	// Mcp-Session-Id header); the replay hands out a session ID of its own.
	Session bool `json:"session,omitempty"`
}

// WriteTape writes the exchanges to path, one JSON object a line (the bytes
// in base64, so that they come back exactly).
func WriteTape(path string, tape []Exchange) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, x := range tape {
		if err := enc.Encode(x); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadTape reads what WriteTape wrote.
func ReadTape(path string) ([]Exchange, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var tape []Exchange
	dec := json.NewDecoder(bufio.NewReader(f))
	for {
		var x Exchange
		err := dec.Decode(&x)
		if err == io.EOF {
			return tape, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: exchange %d: %w", path, len(tape)+1, err)
		}
		tape = append(tape, x)
	}
}
