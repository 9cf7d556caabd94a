package editbench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// git runs git in dir with settings that keep its output machine-readable
// whatever the user's configuration says.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := gitCmd(ctx, dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}

func gitCmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.quotepath=off", "-c", "color.ui=never"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C")
	return cmd
}

// A commit of the first-parent history.
type commit struct {
	Hash    string
	Parents []string
	Subject string
}

// listCommits returns the last n commits of HEAD's first-parent history,
// oldest first (n <= 0: all of them).
func listCommits(ctx context.Context, dir string, n int) ([]commit, error) {
	args := []string{"log", "--first-parent", "--format=%H%x00%P%x00%s%x00"}
	if n > 0 {
		args = append(args, "-n", strconv.Itoa(n))
	}
	out, err := git(ctx, dir, append(args, "HEAD", "--")...)
	if err != nil {
		return nil, err
	}
	fields := strings.Split(string(out), "\x00")
	var cs []commit
	for i := 0; i+2 < len(fields); i += 3 {
		c := commit{Hash: strings.TrimSpace(fields[i]), Parents: strings.Fields(fields[i+1]), Subject: fields[i+2]}
		cs = append(cs, c)
	}
	for i, j := 0, len(cs)-1; i < j; i, j = i+1, j-1 {
		cs[i], cs[j] = cs[j], cs[i]
	}
	return cs, nil
}

// A change is one entry of `git diff-tree --raw`.
type change struct {
	Status           byte // M, R, A, D, T, C, ...
	OldMode, NewMode string
	OldBlob, NewBlob string
	OldPath, NewPath string
}

// changes lists what commit c changes against its parent, following renames.
func changes(ctx context.Context, dir, parent, c string) ([]change, error) {
	out, err := git(ctx, dir, "diff-tree", "-r", "-z", "-M", "--raw", "--no-commit-id", parent, c)
	if err != nil {
		return nil, err
	}
	return parseRaw(out)
}

// parseRaw parses `git diff-tree -r -z --raw` output:
// ":old new oldblob newblob STATUS\0path\0" (and a second path for R and C).
func parseRaw(out []byte) ([]change, error) {
	if len(out) == 0 {
		return nil, nil
	}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var chs []change
	for i := 0; i < len(fields); {
		meta := fields[i]
		f := strings.Fields(strings.TrimPrefix(meta, ":"))
		if !strings.HasPrefix(meta, ":") || len(f) != 5 || f[4] == "" {
			return nil, fmt.Errorf("git diff-tree: unexpected entry %q", meta)
		}
		ch := change{Status: f[4][0], OldMode: f[0], NewMode: f[1], OldBlob: f[2], NewBlob: f[3]}
		npaths := 1
		if ch.Status == 'R' || ch.Status == 'C' {
			npaths = 2
		}
		if i+npaths >= len(fields) {
			return nil, fmt.Errorf("git diff-tree: entry %q without its path", meta)
		}
		ch.OldPath, ch.NewPath = fields[i+1], fields[i+npaths]
		chs = append(chs, ch)
		i += 1 + npaths
	}
	return chs, nil
}

// blobs reads blobs through one `git cat-file --batch` process.
type blobs struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func openBlobs(ctx context.Context, dir string) (*blobs, error) {
	cmd := gitCmd(ctx, dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return &blobs{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}, nil
}

// errTooLarge is a blob over the size limit; its bytes are not kept.
var errTooLarge = errors.New("too large")

// read returns the blob's bytes and size; a blob over max bytes returns its
// size and errTooLarge.
func (b *blobs) read(hash string, max int64) ([]byte, int64, error) {
	if _, err := fmt.Fprintln(b.in, hash); err != nil {
		return nil, 0, fmt.Errorf("git cat-file: %w", err)
	}
	header, err := b.out.ReadString('\n')
	if err != nil {
		return nil, 0, fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return nil, 0, fmt.Errorf("git cat-file %s: %q", hash, strings.TrimSpace(header))
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("git cat-file %s: %q", hash, strings.TrimSpace(header))
	}
	if size > max {
		if _, err := io.CopyN(io.Discard, b.out, size+1); err != nil {
			return nil, size, fmt.Errorf("git cat-file: %w", err)
		}
		return nil, size, errTooLarge
	}
	data := make([]byte, size+1) // and the "\n" that ends the entry
	if _, err := io.ReadFull(b.out, data); err != nil {
		return nil, size, fmt.Errorf("git cat-file: %w", err)
	}
	return data[:size], size, nil
}

func (b *blobs) Close() error {
	b.in.Close()
	return b.cmd.Wait()
}

// A hunk is one change of a zero-context diff, numbered as git numbers it:
// Old lines OldStart..OldStart+OldCount-1 become new lines
// NewStart..NewStart+NewCount-1. With OldCount 0 the new lines are inserted
// after old line OldStart (0: at the top).
type hunk struct {
	OldStart, OldCount int
	NewStart, NewCount int
}

// diffHunks returns the hunks of `git diff -U0` between two blobs. Only the
// positions are taken from git; the text comes from the blobs themselves.
func diffHunks(ctx context.Context, dir, oldBlob, newBlob string) ([]hunk, error) {
	out, err := git(ctx, dir, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--diff-algorithm=myers", "-U0", oldBlob, newBlob)
	if err != nil {
		return nil, err
	}
	return parseHunks(out)
}

// parseHunks reads the "@@ -a[,b] +c[,d] @@" headers of a unified diff.
// Content lines start with ' ', '+', '-' or '\', so they never match.
func parseHunks(out []byte) ([]hunk, error) {
	var hs []hunk
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, "@@ -") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || f[3] != "@@" || !strings.HasPrefix(f[2], "+") {
			return nil, fmt.Errorf("git diff: bad hunk header %q", line)
		}
		var h hunk
		var err1, err2 error
		h.OldStart, h.OldCount, err1 = parseRange(f[1][1:])
		h.NewStart, h.NewCount, err2 = parseRange(f[2][1:])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("git diff: bad hunk header %q: %w", line, err)
		}
		hs = append(hs, h)
	}
	return hs, nil
}

// parseRange parses "a" or "a,b" (b defaults to 1).
func parseRange(s string) (start, count int, err error) {
	a, b, ok := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if ok {
		if count, err = strconv.Atoi(b); err != nil {
			return 0, 0, err
		}
	}
	if start < 0 || count < 0 {
		return 0, 0, fmt.Errorf("negative range %q", s)
	}
	return start, count, nil
}
